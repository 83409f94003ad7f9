import Foundation
import LuthierDomain
import LuthierFeatures
import SQLMachinery

/// The workshop floor: orders moving through their stages, and what the floor's board shows.
extension WorkshopStore {
    /// Moves every order in progress that ``WorkshopPace/nextStage(after:shipping:startedAt:now:)``
    /// finds due at `pace` by `now` by exactly one stage, in one write transaction under the
    /// workshop's lock: two instances calling at once take turns, and the second finds nothing
    /// left due, so no stage is repeated.
    ///
    /// The new stage starts when the old one was due, not `now`, so stages never drift. An order
    /// several paces behind (the server was down) therefore moves one stage per call, each call
    /// finding it due again: no stage is skipped. Finished orders never move.
    ///
    /// The work is the change's, not the workshop's: only orders whose stage began early enough to
    /// be due are read (an index on status and stage start), and most passes, which find nothing
    /// due (the floor makes one for each order placed), learn so from one read without the lock,
    /// holding up no order.
    ///
    /// With a `term` (an instance leading among several), a pass that finds something due moves
    /// nothing and throws `WorkshopStoreError.floorTermEnded` unless that term is still the
    /// floor's, read under the same lock as the moves: a leader's statements that reach the
    /// database only after another instance has taken the lead (its link was cut) move nothing.
    /// Each stage row keeps the term it was moved in.
    ///
    /// - Returns: the orders that moved, as stored now, oldest first.
    public func advanceStages(now: Date, pace: WorkshopPace, term: FloorTerm? = nil) async throws -> [Order] {
        let due: SQLStatement = """
            SELECT number, status, shipping, stage_started_at FROM orders
            WHERE status IN \(list: Self.inProgressStatuses) AND stage_started_at <= \(pace.latestDueStart(by: now))
            """
        guard try await !database.read("\(due) LIMIT 1").isEmpty else { return [] }
        return try await database.write { connection in
            if let term {
                let current = try await Self.floorTerm(on: connection)
                guard current == term else {
                    throw WorkshopStoreError.floorTermEnded(term: term.number, current: current.number)
                }
            }
            let inProgress = try await connection.rows(
                "\(due) ORDER BY placed_at, number COLLATE \(sql: connection.dialect.byteOrder)")
            var moved: [String] = []
            for row in inProgress {
                let number: String = try row["number"]
                let statusText: String = try row["status"]
                let shippingText: String = try row["shipping"]
                guard let status = OrderStatus(rawValue: statusText) else {
                    throw WorkshopStoreError.unreadableOrder(number: number, column: "status", value: statusText)
                }
                guard let shipping = ShippingMethod(rawValue: shippingText) else {
                    throw WorkshopStoreError.unreadableOrder(number: number, column: "shipping", value: shippingText)
                }
                let startedAt = Self.date(milliseconds: try row["stage_started_at"])
                guard let next = pace.nextStage(after: status, shipping: shipping, startedAt: startedAt, now: now)
                else { continue }
                try await connection.run(
                    """
                    UPDATE orders SET status = \(next.status.rawValue), stage_started_at = \(Self.milliseconds(next.startedAt))
                    WHERE number = \(number)
                    """)
                try await Self.insertStage(next, of: number, in: term, on: connection)
                try await connection.tell(WorkshopChange.advanced(number: number).payload, on: .workshop)
                moved.append(number)
            }
            guard !moved.isEmpty else { return [] }
            let orders = try await Self.fetchOrders(
                on: connection,
                """
                SELECT \(sql: Self.orderColumns) FROM orders WHERE number IN \(list: moved)
                ORDER BY placed_at, number COLLATE \(sql: connection.dialect.byteOrder)
                """)
            for order in orders {
                if let entry = JournalEntry.reached(order.status, by: order) {
                    try await Self.write(entry, at: now, on: connection)
                }
            }
            return orders
        }
    }

    /// Starts a new term of the workshop floor, for an instance that has just taken the lead: every
    /// pass of an older term is refused from now on (``advanceStages(now:pace:term:)``). Raised
    /// under the workshop's lock, so a pass of the old term already under way finishes first.
    public func beginFloorTerm() async throws -> FloorTerm {
        try await database.write { connection in
            try await connection.run("UPDATE floor_term SET term = term + 1 WHERE id = 1")
            return try await Self.floorTerm(on: connection)
        }
    }

    /// The floor's term now (the migration writes its one row, at 0).
    static func floorTerm(on connection: any SQLConnection) async throws -> FloorTerm {
        let term: Int64? = try await connection.rows("SELECT term FROM floor_term WHERE id = 1").first?.first()
        return FloorTerm(term ?? 0)
    }

    /// When the next stage change is due at `pace` — the earliest stage start plus `pace` of the
    /// orders in progress, possibly already past — or nil when no order is in progress.
    ///
    /// Asked after every pass, so it costs the same however many orders are in progress: the
    /// earliest start of each stage is the first entry of the index on status and stage start,
    /// and the answer is the least of those few (a `MIN` over `status IN (…)` would read every
    /// order in progress: 1.4 ms with 4,800 of them on PostgreSQL).
    public func nextStageChange(pace: WorkshopPace) async throws -> Date? {
        let earliestOfEach = SQLStatement.joined(
            Self.inProgressStatuses.map { "SELECT MIN(stage_started_at) AS earliest FROM orders WHERE status = \($0)" },
            separator: " UNION ALL ")
        let earliest = try await database.read("SELECT MIN(earliest) FROM (\(earliestOfEach)) AS stages")
            .first?.first(as: Int64?.self)
        return earliest.flatMap { $0 }.map { pace.stageEnds(startedAt: Self.date(milliseconds: $0)) }
    }

    /// The latest `limit` orders, newest first.
    public func recentOrders(limit: Int) async throws -> [Order] {
        try await orders(stage: nil, numberContaining: nil, limit: limit)
    }

    /// Every order in progress (not shipped or ready for pickup), oldest first.
    public func ordersInProgress() async throws -> [Order] {
        try await database.read { connection in
            try await Self.fetchOrders(
                on: connection,
                """
                SELECT \(sql: Self.orderColumns) FROM orders WHERE status IN \(list: Self.inProgressStatuses)
                ORDER BY placed_at, number COLLATE \(sql: connection.dialect.byteOrder)
                """)
        }
    }

    /// How many guitars have been ordered since `since`: the quantities of every line of every
    /// order placed then or later.
    public func guitarsOrdered(since: Date) async throws -> Int {
        try await database.read(
            """
            SELECT COALESCE(SUM(order_lines.quantity), 0) FROM order_lines
            JOIN orders ON orders.number = order_lines.order_number
            WHERE orders.placed_at >= \(Self.milliseconds(since))
            """
        ).first?.first() ?? 0
    }
}
