import Foundation
import Logging
import LuthierDomain
import PostgresNIO

/// The wood store: what the customer's checks read (availability, estimate) and what the admin
/// keeps (levels, audited adjustments).
extension PostgresStore {
    /// Each line's availability, in line order, judged against the whole order (``WoodNeed``).
    public func availability(for lines: [CartLine]) async throws -> [Availability] {
        try await read { connection in
            WoodNeed.availability(
                of: lines, stock: try await Self.stock(of: WoodNeed.of(lines), on: connection, self.logger))
        }
    }

    /// The longest of the estimates of the order's distinct guitars, by ``estimateRule``; an order
    /// of nothing takes what the backlog alone takes.
    public func estimate(for lines: [CartLine]) async throws -> BuildEstimate {
        try await read { connection in
            let openOrders = try await Self.openOrderCount(on: connection, self.logger)
            var longest: BuildEstimate?
            var seen: Set<Guitar> = []
            for line in lines where seen.insert(line.guitar).inserted {
                let estimate = self.estimateRule.estimate(
                    openOrders: openOrders,
                    bodyStock: try await Self.quantity(of: .body(line.guitar.body), on: connection, self.logger),
                    fretboardStock: try await Self.quantity(
                        of: .fretboard(line.guitar.fretboard), on: connection, self.logger))
                if estimate.months > longest?.months ?? Int.min { longest = estimate }
            }
            return longest
                ?? self.estimateRule.estimate(openOrders: openOrders, bodyStock: Int.max, fretboardStock: Int.max)
        }
    }

    /// Every stock line in the pickers' order, with what open orders hold and finished guitars took.
    public func stockLevels() async throws -> [StockLevel] {
        try await read { connection in try await Self.stockLevels(on: connection, self.logger) }
    }

    /// The stock lines with nothing in stock.
    public func soldOut() async throws -> Set<StockedWood> {
        try await read { connection in
            Set(
                try await connection.rows("SELECT kind, wood FROM wood_stock WHERE quantity <= 0", self.logger)
                    .compactMap(Self.stockedWood(in:)))
        }
    }

    /// Books `change` pieces of `wood` with `note`: the stock and its audit row together.
    ///
    /// - Throws: `StockRefusal` when `StockLevel.refusal(of:)` refuses it; nothing is written.
    public func adjustStock(of wood: StockedWood, by change: Int, note: String) async throws -> StockAdjustment {
        try await write { connection in
            let levels = try await Self.stockLevels(on: connection, self.logger)
            let level = levels.first { $0.wood == wood } ?? StockLevel(wood: wood, inStock: 0, reserved: 0, taken: 0)
            if let refusal = level.refusal(of: change) { throw refusal }
            let booked = try await Self.book(
                change, of: wood, inStockBefore: level.inStock, note: note, at: self.now(), on: connection, self.logger)
            for entry in JournalEntry.adjusted(wood, by: change, inStockAfter: booked.inStockAfter) {
                try await Self.write(entry, at: booked.madeAt, on: connection, self.logger)
            }
            return booked
        }
    }

    /// The latest `limit` adjustments, newest first.
    public func stockAdjustments(limit: Int) async throws -> [StockAdjustment] {
        try await read { connection in
            try await connection.rows(
                """
                SELECT kind, wood, change, quantity_after, note, made_at FROM stock_adjustments
                ORDER BY made_at DESC, id DESC LIMIT \(max(0, limit))
                """, self.logger
            ).compactMap { row in
                guard let wood = Self.stockedWood(in: row) else { return nil }
                return StockAdjustment(
                    wood: wood, change: try row["change"].decode(Int.self),
                    inStockAfter: try row["quantity_after"].decode(Int.self), note: try row["note"].decode(String.self),
                    madeAt: Self.date(milliseconds: try row["made_at"].decode(Int64.self)))
            }
        }
    }

    // MARK: - Inside a transaction

    /// Writes a change that is already judged: the stock and its audit row.
    static func book(
        _ change: Int, of wood: StockedWood, inStockBefore: Int, note: String, at now: Date,
        on connection: PostgresConnection, _ logger: Logger
    ) async throws -> StockAdjustment {
        let adjustment = StockAdjustment(
            wood: wood, change: change, inStockAfter: inStockBefore + change, note: note,
            madeAt: date(milliseconds: milliseconds(now)))
        try await connection.run(
            """
            INSERT INTO wood_stock (kind, wood, quantity) VALUES (\(wood.kind), \(wood.wood), \(adjustment.inStockAfter))
            ON CONFLICT (kind, wood) DO UPDATE SET quantity = excluded.quantity
            """, logger)
        try await connection.run(
            """
            INSERT INTO stock_adjustments (kind, wood, change, quantity_after, note, made_at)
            VALUES (\(wood.kind), \(wood.wood), \(change), \(adjustment.inStockAfter), \(note),
                \(milliseconds(adjustment.madeAt)))
            """, logger)
        return adjustment
    }

    static func stockLevels(on connection: PostgresConnection, _ logger: Logger) async throws -> [StockLevel] {
        var inStock: [StockedWood: Int] = [:]
        for row in try await connection.rows("SELECT kind, wood, quantity FROM wood_stock", logger) {
            if let wood = stockedWood(in: row) { inStock[wood] = try row["quantity"].decode(Int.self) }
        }
        // Which stages hold wood and which used it up is the domain's (`StockLevel.levels`); the
        // query only adds up the guitars per stage and wood.
        let rows = try await connection.rows(
            """
            SELECT orders.status, order_lines.body, order_lines.fretboard, SUM(order_lines.quantity) AS guitars
            FROM order_lines JOIN orders ON orders.number = order_lines.order_number
            GROUP BY orders.status, order_lines.body, order_lines.fretboard
            """, logger)
        let guitars = try rows.compactMap { row -> StockLevel.GuitarsAtStage? in
            guard let status = OrderStatus(rawValue: try row["status"].decode(String.self)),
                let body = BodyWood(rawValue: try row["body"].decode(String.self)),
                let fretboard = FretboardWood(rawValue: try row["fretboard"].decode(String.self))
            else { return nil }
            return StockLevel.GuitarsAtStage(
                status: status, body: body, fretboard: fretboard, guitars: try row["guitars"].decode(Int.self))
        }
        return StockLevel.levels(inStock: inStock, guitars: guitars)
    }

    /// The stock of each wood `needs` name.
    static func stock(
        of needs: [WoodNeed], on connection: PostgresConnection, _ logger: Logger
    ) async throws -> [StockedWood: Int] {
        var stock: [StockedWood: Int] = [:]
        for need in needs { stock[need.wood] = try await quantity(of: need.wood, on: connection, logger) }
        return stock
    }

    static func quantity(of wood: StockedWood, on connection: PostgresConnection, _ logger: Logger) async throws -> Int
    {
        try await connection.value(
            Int.self, "SELECT quantity FROM wood_stock WHERE kind = \(wood.kind) AND wood = \(wood.wood)", logger) ?? 0
    }

    static func openOrderCount(on connection: PostgresConnection, _ logger: Logger) async throws -> Int {
        try await connection.value(
            Int.self, "SELECT COUNT(*) FROM orders WHERE status = ANY(\(inProgressStatuses))", logger) ?? 0
    }

    /// The raw values of the stages in progress (the domain's `OrderStatus.isFinished`), bound as
    /// one array: a status this version does not know is neither in progress nor moved.
    static let inProgressStatuses = OrderStatus.allCases.filter { !$0.isFinished }.map(\.rawValue)

    /// The stock line a row's `kind` and `wood` columns name, if this version knows it.
    static func stockedWood(in row: PostgresRandomAccessRow) -> StockedWood? {
        guard let kind = try? row["kind"].decode(String.self), let wood = try? row["wood"].decode(String.self) else {
            return nil
        }
        return StockedWood(id: "\(kind)/\(wood)")
    }
}
