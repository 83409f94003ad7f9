import Foundation
import LuthierDomain
import LuthierFeatures
import SQLMachinery

/// What the shop's admin does with orders: find them, read their history, cancel one before its
/// woods are cut, hand a pickup over.
extension WorkshopStore {
    /// Orders newest first, at most `limit`: those at `stage` (every stage when nil) whose number
    /// contains `number` (every number when nil; the caller passes it upper-cased).
    public func orders(stage: OrderStatus?, numberContaining number: String?, limit: Int) async throws -> [Order] {
        try await database.read { connection in
            let dialect = connection.dialect
            var query: SQLStatement = "SELECT \(sql: Self.orderColumns) FROM orders WHERE 1 = 1"
            if let stage { query = "\(query) AND status = \(stage.rawValue)" }
            if let number { query = "\(query) AND \(sql: dialect.position)(number, \(number)) > 0" }
            return try await Self.fetchOrders(
                on: connection,
                "\(query) ORDER BY placed_at DESC, number COLLATE \(sql: dialect.byteOrder) DESC LIMIT \(max(0, limit))"
            )
        }
    }

    /// The stages order `number` has reached, in the order they were written (empty for no such order).
    public func stageHistory(ofOrder number: String) async throws -> [StageEntry] {
        try await database.read { connection in
            try await connection.rows(
                """
                SELECT status, started_at, note FROM order_stages WHERE order_number = \(number)
                ORDER BY \(sql: connection.dialect.insertionOrder)
                """
            ).compactMap { row in
                guard let status = OrderStatus(rawValue: try row["status"]) else { return nil }
                return StageEntry(
                    status: status, startedAt: Self.date(milliseconds: try row["started_at"]), note: try row["note"])
            }
        }
    }

    /// Cancels order `number` with the admin's `note`, in one write transaction: the order becomes
    /// `cancelled` (dated now, with the note in its history) and every piece of wood it took goes
    /// back to stock, each wood as one audited adjustment.
    ///
    /// - Throws: `OrderChangeRefusal.noSuchOrder`, or `.notCancellable` once its woods are being
    ///   cut (past wood selection); nothing is written then.
    public func cancelOrder(number: String, note: String) async throws -> Order {
        try await database.write { connection in
            guard let order = try await Self.fetchOrder(on: connection, number: number) else {
                throw OrderChangeRefusal.noSuchOrder(number)
            }
            guard order.status.isCancellable else { throw OrderChangeRefusal.notCancellable(number, order.status) }
            let at = self.now()
            let stock = try Self.stock(from: try await connection.rows(Self.allStock))
            for need in WoodNeed.of(order.lines) {
                _ = try await Self.book(
                    need.count, of: need.wood, inStockBefore: stock[need.wood] ?? 0,
                    note: "Order \(number) cancelled: \(note)", at: at, on: connection)
            }
            return try await Self.move(order, to: .cancelled, at: at, note: note, on: connection)
        }
    }

    /// Marks pickup order `number` collected (dated now).
    ///
    /// - Throws: `OrderChangeRefusal.noSuchOrder`, or `.notCollectable` unless it is ready for
    ///   pickup; nothing is written then.
    public func markCollected(number: String) async throws -> Order {
        try await database.write { connection in
            guard let order = try await Self.fetchOrder(on: connection, number: number) else {
                throw OrderChangeRefusal.noSuchOrder(number)
            }
            guard order.status.isCollectable else { throw OrderChangeRefusal.notCollectable(number, order.status) }
            return try await Self.move(order, to: .collected, at: self.now(), note: nil, on: connection)
        }
    }

    /// Puts `order` at `status` from `at`, with its history row, and tells the other instances;
    /// returns it as stored.
    private static func move(
        _ order: Order, to status: OrderStatus, at: Date, note: String?, on connection: any SQLConnection
    ) async throws -> Order {
        let started = milliseconds(at)
        try await connection.run(
            "UPDATE orders SET status = \(status.rawValue), stage_started_at = \(started) WHERE number = \(order.number)"
        )
        try await insertStage(
            StageEntry(status: status, startedAt: date(milliseconds: started), note: note), of: order.number,
            on: connection)
        try await connection.tell(WorkshopChange.changed(number: order.number).payload, on: .workshop)
        guard let moved = try await fetchOrder(on: connection, number: order.number) else {
            throw OrderChangeRefusal.noSuchOrder(order.number)
        }
        return moved
    }
}
