import Foundation
import Logging
import LuthierDomain
import PostgresNIO

/// The workshop floor and the admin's orders: stages, the board's reads, cancelling and handing over.
extension PostgresStore {
    /// Moves every order in progress that ``WorkshopPace/nextStage(after:shipping:startedAt:now:)``
    /// finds due by exactly one stage, under the workshop's lock: two instances calling at once
    /// take turns, and the second finds nothing left due, so no stage is repeated.
    ///
    /// - Returns: the orders that moved, as stored now, oldest first.
    public func advanceStages(now: Date, pace: WorkshopPace) async throws -> [Order] {
        let channel = changesChannel
        return try await write { connection in
            let inProgress = try await connection.rows(
                """
                SELECT number, status, shipping, stage_started_at FROM orders
                WHERE status = ANY(\(Self.inProgressStatuses)) ORDER BY placed_at, number COLLATE "C"
                """, self.logger)
            var moved: [String] = []
            for row in inProgress {
                let number = try row["number"].decode(String.self)
                let statusText = try row["status"].decode(String.self)
                let shippingText = try row["shipping"].decode(String.self)
                guard let status = OrderStatus(rawValue: statusText) else {
                    throw WorkshopStoreError.unreadableOrder(number: number, column: "status", value: statusText)
                }
                guard let shipping = ShippingMethod(rawValue: shippingText) else {
                    throw WorkshopStoreError.unreadableOrder(number: number, column: "shipping", value: shippingText)
                }
                let startedAt = Self.date(milliseconds: try row["stage_started_at"].decode(Int64.self))
                guard let next = pace.nextStage(after: status, shipping: shipping, startedAt: startedAt, now: now)
                else { continue }
                try await connection.run(
                    """
                    UPDATE orders SET status = \(next.status.rawValue), stage_started_at = \(Self.milliseconds(next.startedAt))
                    WHERE number = \(number)
                    """, self.logger)
                try await Self.insertStage(next, of: number, on: connection, self.logger)
                try await Self.notify(.advanced(number: number), on: channel, connection, self.logger)
                moved.append(number)
            }
            guard !moved.isEmpty else { return [] }
            let orders = try await Self.fetchOrders(
                on: connection,
                """
                SELECT \(unescaped: Self.orderColumns) FROM orders WHERE number = ANY(\(moved))
                ORDER BY placed_at, number COLLATE "C"
                """, self.logger)
            for order in orders {
                if let entry = JournalEntry.reached(order.status, by: order) {
                    try await Self.write(entry, at: now, on: connection, self.logger)
                }
            }
            return orders
        }
    }

    /// When the next stage change is due at `pace`, or nil when no order is in progress.
    public func nextStageChange(pace: WorkshopPace) async throws -> Date? {
        try await read { connection in
            let earliest = try await connection.value(
                Int64?.self,
                "SELECT MIN(stage_started_at) FROM orders WHERE status = ANY(\(Self.inProgressStatuses))", self.logger)
            return earliest.flatMap { $0 }.map { pace.stageEnds(startedAt: Self.date(milliseconds: $0)) }
        }
    }

    /// The latest `limit` orders, newest first.
    public func recentOrders(limit: Int) async throws -> [Order] {
        try await read { connection in
            try await Self.fetchOrders(
                on: connection,
                """
                SELECT \(unescaped: Self.orderColumns) FROM orders
                ORDER BY placed_at DESC, number COLLATE "C" DESC LIMIT \(max(0, limit))
                """, self.logger)
        }
    }

    /// Every order in progress, oldest first.
    public func ordersInProgress() async throws -> [Order] {
        try await read { connection in
            try await Self.fetchOrders(
                on: connection,
                """
                SELECT \(unescaped: Self.orderColumns) FROM orders WHERE status = ANY(\(Self.inProgressStatuses))
                ORDER BY placed_at, number COLLATE "C"
                """, self.logger)
        }
    }

    /// How many guitars have been ordered since `since`.
    public func guitarsOrdered(since: Date) async throws -> Int {
        try await read { connection in
            try await connection.value(
                Int.self,
                """
                SELECT COALESCE(SUM(order_lines.quantity), 0) FROM order_lines
                JOIN orders ON orders.number = order_lines.order_number
                WHERE orders.placed_at >= \(Self.milliseconds(since))
                """, self.logger) ?? 0
        }
    }

    /// Orders newest first, at most `limit`: those at `stage` (every stage when nil) whose number
    /// contains `number` (every number when nil).
    public func orders(stage: OrderStatus?, numberContaining number: String?, limit: Int) async throws -> [Order] {
        try await read { connection in
            try await Self.fetchOrders(
                on: connection,
                """
                SELECT \(unescaped: Self.orderColumns) FROM orders
                WHERE (\(stage?.rawValue)::text IS NULL OR status = \(stage?.rawValue))
                    AND (\(number)::text IS NULL OR strpos(number, \(number)) > 0)
                ORDER BY placed_at DESC, number COLLATE "C" DESC LIMIT \(max(0, limit))
                """, self.logger)
        }
    }

    /// The stages order `number` has reached, in the order they were written.
    public func stageHistory(ofOrder number: String) async throws -> [StageEntry] {
        try await read { connection in
            try await connection.rows(
                "SELECT status, started_at, note FROM order_stages WHERE order_number = \(number) ORDER BY id",
                self.logger
            ).compactMap { row in
                guard let status = OrderStatus(rawValue: try row["status"].decode(String.self)) else { return nil }
                return StageEntry(
                    status: status, startedAt: Self.date(milliseconds: try row["started_at"].decode(Int64.self)),
                    note: try row["note"].decode(String?.self))
            }
        }
    }

    /// Cancels order `number`: it becomes `cancelled` with the note, and every piece of wood it
    /// took goes back to stock, each wood one audited adjustment.
    ///
    /// - Throws: `OrderChangeRefusal.noSuchOrder` or `.notCancellable`; nothing is written then.
    public func cancelOrder(number: String, note: String) async throws -> Order {
        let channel = changesChannel
        return try await write { connection in
            guard let order = try await Self.fetchOrder(on: connection, where: .number, is: number, self.logger) else {
                throw OrderChangeRefusal.noSuchOrder(number)
            }
            guard order.status.isCancellable else { throw OrderChangeRefusal.notCancellable(number, order.status) }
            let at = self.now()
            for need in WoodNeed.of(order.lines) {
                _ = try await Self.book(
                    need.count, of: need.wood,
                    inStockBefore: try await Self.quantity(of: need.wood, on: connection, self.logger),
                    note: "Order \(number) cancelled: \(note)", at: at, on: connection, self.logger)
            }
            return try await Self.move(
                order, to: .cancelled, at: at, note: note, channel: channel, on: connection, self.logger)
        }
    }

    /// Marks pickup order `number` collected.
    ///
    /// - Throws: `OrderChangeRefusal.noSuchOrder` or `.notCollectable`; nothing is written then.
    public func markCollected(number: String) async throws -> Order {
        let channel = changesChannel
        return try await write { connection in
            guard let order = try await Self.fetchOrder(on: connection, where: .number, is: number, self.logger) else {
                throw OrderChangeRefusal.noSuchOrder(number)
            }
            guard order.status.isCollectable else { throw OrderChangeRefusal.notCollectable(number, order.status) }
            return try await Self.move(
                order, to: .collected, at: self.now(), note: nil, channel: channel, on: connection, self.logger)
        }
    }

    /// Puts `order` at `status` from `at`, with its history row; returns it as stored.
    private static func move(
        _ order: Order, to status: OrderStatus, at: Date, note: String?, channel: String,
        on connection: PostgresConnection, _ logger: Logger
    ) async throws -> Order {
        let started = milliseconds(at)
        try await connection.run(
            "UPDATE orders SET status = \(status.rawValue), stage_started_at = \(started) WHERE number = \(order.number)",
            logger)
        try await insertStage(
            StageEntry(status: status, startedAt: date(milliseconds: started), note: note), of: order.number,
            on: connection, logger)
        try await notify(.changed(number: order.number), on: channel, connection, logger)
        guard let moved = try await fetchOrder(on: connection, where: .number, is: order.number, logger) else {
            throw OrderChangeRefusal.noSuchOrder(order.number)
        }
        return moved
    }
}
