import Foundation
import GRDB
import LuthierDomain

/// The workshop floor: orders moving through their stages, and what the floor's board shows.
extension WorkshopStore {
    /// Moves every order in progress whose stage has lasted `pace` by `now` on by exactly one stage
    /// (after Setup: Ready for pickup for a pickup, Shipped otherwise), in one write transaction.
    ///
    /// The new stage starts when the old one was due (`stage_started_at + pace`), not `now`, so
    /// stages never drift. An order several paces behind (the server was down) therefore moves
    /// one stage per call, each call finding it due again: no stage is skipped. Finished orders
    /// never move.
    ///
    /// - Returns: the orders that moved, as stored now, oldest first.
    public func advanceStages(now: Date, pace: WorkshopPace) throws -> [Order] {
        try writer.write { db in try Self.advanceStages(now: now, pace: pace, in: db) }
    }

    /// When the next stage change is due at `pace` — the earliest `stage_started_at + pace` of the
    /// orders in progress, possibly already past — or nil when no order is in progress.
    public func nextStageChange(pace: WorkshopPace) throws -> Date? {
        try writer.read { db in try Self.nextStageChange(pace: pace, in: db) }
    }

    /// The latest `limit` orders, newest first.
    public func recentOrders(limit: Int) throws -> [Order] {
        try writer.read { db in try Self.recentOrders(limit: limit, in: db) }
    }

    /// Every order in progress (not shipped or ready for pickup), oldest first.
    public func ordersInProgress() throws -> [Order] {
        try writer.read { db in try Self.ordersInProgress(in: db) }
    }

    /// How many guitars have been ordered since `since`: the quantities of every line of every
    /// order placed then or later.
    public func guitarsOrdered(since: Date) throws -> Int {
        try writer.read { db in try Self.guitarsOrdered(since: since, in: db) }
    }

    /// `advanceStages(now:pace:)` without holding a Swift concurrency thread while the writer is busy.
    func advanceStagesAsync(now: Date, pace: WorkshopPace) async throws -> [Order] {
        try await writer.write { db in try Self.advanceStages(now: now, pace: pace, in: db) }
    }

    // MARK: - Inside a database access

    /// The stages of an order in progress, as an SQL list of literals (the enum's own raw values,
    /// never input): `('woodSelection', 'bodyShaping', 'finishing', 'setup')`. A status this version
    /// does not know is neither in progress nor moved.
    static let inProgressStatuses =
        "(" + OrderStatus.allCases.filter { !$0.isFinished }.map { "'\($0.rawValue)'" }.joined(separator: ", ") + ")"

    /// Reads the orders in progress and writes the step ``WorkshopPace/nextStage(after:shipping:startedAt:now:)``
    /// judges due: the rule is the domain's, the store only reads and writes.
    static func advanceStages(now: Date, pace: WorkshopPace, in db: Database) throws -> [Order] {
        let inProgress = try Row.fetchAll(
            db,
            sql: """
                SELECT number, status, shipping, stage_started_at FROM orders
                WHERE status IN \(inProgressStatuses)
                ORDER BY placed_at, number
                """
        )
        var moved: [Order] = []
        for row in inProgress {
            let number: String = row["number"]
            let statusText: String = row["status"]
            let shippingText: String = row["shipping"]
            guard let status = OrderStatus(rawValue: statusText) else {
                throw WorkshopStoreError.unreadableOrder(number: number, column: "status", value: statusText)
            }
            guard let shipping = ShippingMethod(rawValue: shippingText) else {
                throw WorkshopStoreError.unreadableOrder(number: number, column: "shipping", value: shippingText)
            }
            guard
                let next = pace.nextStage(
                    after: status, shipping: shipping, startedAt: date(milliseconds: row["stage_started_at"]), now: now)
            else { continue }
            try db.execute(
                sql: "UPDATE orders SET status = ?, stage_started_at = ? WHERE number = ?",
                arguments: [next.status.rawValue, milliseconds(next.startedAt), number]
            )
            try insertStage(next, of: number, in: db)
            if let order = try fetchOrder(in: db, where: "number", is: number) {
                moved.append(order)
                if let entry = JournalEntry.reached(order.status, by: order) { try write(entry, at: now, in: db) }
            }
        }
        return moved
    }

    static func nextStageChange(pace: WorkshopPace, in db: Database) throws -> Date? {
        let earliest = try Int64.fetchOne(
            db, sql: "SELECT MIN(stage_started_at) FROM orders WHERE status IN \(inProgressStatuses)")
        return earliest.map { pace.stageEnds(startedAt: date(milliseconds: $0)) }
    }

    static func recentOrders(limit: Int, in db: Database) throws -> [Order] {
        try fetchOrders(
            in: db, sql: "SELECT * FROM orders ORDER BY placed_at DESC, number DESC LIMIT ?",
            arguments: [max(0, limit)])
    }

    static func ordersInProgress(in db: Database) throws -> [Order] {
        try fetchOrders(
            in: db, sql: "SELECT * FROM orders WHERE status IN \(inProgressStatuses) ORDER BY placed_at, number")
    }

    static func guitarsOrdered(since: Date, in db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: """
                SELECT COALESCE(SUM(order_lines.quantity), 0) FROM order_lines
                JOIN orders ON orders.number = order_lines.order_number
                WHERE orders.placed_at >= ?
                """,
            arguments: [milliseconds(since)]
        ) ?? 0
    }
}
