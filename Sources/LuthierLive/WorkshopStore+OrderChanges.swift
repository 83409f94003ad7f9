import Foundation
import GRDB
import LuthierDomain

/// What the shop's admin does with orders: find them, read their history, cancel one before its
/// woods are cut, hand a pickup over.
extension WorkshopStore {
    /// Orders newest first, at most `limit`: those at `stage` (every stage when nil) whose number
    /// contains `number` (every number when nil; the caller passes it upper-cased).
    public func orders(stage: OrderStatus?, numberContaining number: String?, limit: Int) throws -> [Order] {
        try writer.read { db in try Self.orders(stage: stage, numberContaining: number, limit: limit, in: db) }
    }

    /// The stages order `number` has reached, in the order they were written (empty for no such order).
    public func stageHistory(ofOrder number: String) throws -> [StageEntry] {
        try writer.read { db in try Self.stageHistory(ofOrder: number, in: db) }
    }

    /// Cancels order `number` with the admin's `note`, in one write transaction: the order becomes
    /// `cancelled` (dated now, with the note in its history) and every piece of wood it took goes
    /// back to stock, each wood as one audited adjustment.
    ///
    /// - Throws: `OrderChangeRefusal.noSuchOrder`, or `.notCancellable` once its woods are being
    ///   cut (past wood selection); nothing is written then.
    public func cancelOrder(number: String, note: String) throws -> Order {
        try writer.write { db in try self.cancelOrder(number: number, note: note, in: db) }
    }

    /// Marks pickup order `number` collected (dated now).
    ///
    /// - Throws: `OrderChangeRefusal.noSuchOrder`, or `.notCollectable` unless it is ready for
    ///   pickup; nothing is written then.
    public func markCollected(number: String) throws -> Order {
        try writer.write { db in try self.markCollected(number: number, in: db) }
    }

    // MARK: - Inside a database access

    func cancelOrder(number: String, note: String, in db: Database) throws -> Order {
        guard let order = try Self.fetchOrder(in: db, where: "number", is: number) else {
            throw OrderChangeRefusal.noSuchOrder(number)
        }
        guard order.status.isCancellable else { throw OrderChangeRefusal.notCancellable(number, order.status) }
        let at = now()
        for need in WoodNeed.of(order.lines) {
            _ = try Self.book(
                need.count, of: need.wood, inStockBefore: try Self.quantity(of: need.wood, in: db),
                note: "Order \(number) cancelled: \(note)", at: at, in: db)
        }
        return try Self.move(order, to: .cancelled, at: at, note: note, in: db)
    }

    func markCollected(number: String, in db: Database) throws -> Order {
        guard let order = try Self.fetchOrder(in: db, where: "number", is: number) else {
            throw OrderChangeRefusal.noSuchOrder(number)
        }
        guard order.status.isCollectable else { throw OrderChangeRefusal.notCollectable(number, order.status) }
        return try Self.move(order, to: .collected, at: now(), note: nil, in: db)
    }

    /// Puts `order` at `status` from `at`, with its history row; returns it as stored.
    private static func move(
        _ order: Order, to status: OrderStatus, at: Date, note: String?, in db: Database
    ) throws -> Order {
        let started = milliseconds(at)
        try db.execute(
            sql: "UPDATE orders SET status = ?, stage_started_at = ? WHERE number = ?",
            arguments: [status.rawValue, started, order.number])
        try insertStage(
            StageEntry(status: status, startedAt: date(milliseconds: started), note: note), of: order.number, in: db)
        guard let moved = try fetchOrder(in: db, where: "number", is: order.number) else {
            throw OrderChangeRefusal.noSuchOrder(order.number)
        }
        return moved
    }

    static func insertStage(_ entry: StageEntry, of number: String, in db: Database) throws {
        try db.execute(
            sql: "INSERT INTO order_stages (order_number, status, started_at, note) VALUES (?, ?, ?, ?)",
            arguments: [number, entry.status.rawValue, milliseconds(entry.startedAt), entry.note])
    }

    static func orders(
        stage: OrderStatus?, numberContaining number: String?, limit: Int, in db: Database
    ) throws -> [Order] {
        try fetchOrders(
            in: db,
            sql: """
                SELECT * FROM orders
                WHERE (?1 IS NULL OR status = ?1) AND (?2 IS NULL OR instr(number, ?2) > 0)
                ORDER BY placed_at DESC, number DESC LIMIT ?3
                """,
            arguments: [stage?.rawValue, number, max(0, limit)])
    }

    static func stageHistory(ofOrder number: String, in db: Database) throws -> [StageEntry] {
        try Row.fetchAll(
            db,
            sql: "SELECT status, started_at, note FROM order_stages WHERE order_number = ? ORDER BY rowid",
            arguments: [number]
        ).compactMap { row in
            guard let status = OrderStatus(rawValue: row["status"]) else { return nil }
            return StageEntry(status: status, startedAt: date(milliseconds: row["started_at"]), note: row["note"])
        }
    }
}
