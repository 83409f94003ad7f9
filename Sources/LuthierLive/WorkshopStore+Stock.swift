import Foundation
import LuthierDomain
import SQLMachinery

/// The wood store as the shop's admin keeps it: every level, and audited adjustments.
extension WorkshopStore {
    /// Every stock line, in the pickers' order (`StockedWood.allCases`), with what open orders
    /// hold and what finished guitars took.
    public func stockLevels() async throws -> [StockLevel] {
        try await database.read { connection in try await Self.stockLevels(on: connection) }
    }

    /// The stock lines with nothing in stock (the `wood_stock` table alone).
    public func soldOut() async throws -> Set<StockedWood> {
        Set(
            try await database.read("SELECT kind, wood FROM wood_stock WHERE quantity <= 0").compactMap(
                Self.stockedWood))
    }

    /// What each wood has in stock now (the `wood_stock` table alone, one statement).
    public func inStock() async throws -> [StockedWood: Int] {
        try Self.stock(from: try await database.read(Self.allStock))
    }

    /// Books `change` pieces of `wood` (positive: a restock; negative: a correction), with `note`,
    /// in one write transaction: the stock and its audit row together or neither.
    ///
    /// - Throws: `StockRefusal` when the change is 0, larger than `StockLevel.largestChange`, or
    ///   would take the stock below zero or above `StockLevel.mostInStock`; nothing is written.
    /// - Returns: the adjustment as booked.
    public func adjustStock(of wood: StockedWood, by change: Int, note: String) async throws -> StockAdjustment {
        try await database.write { connection in
            let levels = try await Self.stockLevels(on: connection)
            let level = levels.first { $0.wood == wood } ?? StockLevel(wood: wood, inStock: 0, reserved: 0, taken: 0)
            if let refusal = level.refusal(of: change) { throw refusal }
            let booked = try await Self.book(
                change, of: wood, inStockBefore: level.inStock, note: note, at: self.now(), on: connection)
            for entry in JournalEntry.adjusted(wood, by: change, inStockAfter: booked.inStockAfter) {
                try await Self.write(entry, at: booked.madeAt, on: connection)
            }
            return booked
        }
    }

    /// The latest `limit` adjustments, newest first.
    public func stockAdjustments(limit: Int) async throws -> [StockAdjustment] {
        try await database.read(
            """
            SELECT kind, wood, change, quantity_after, note, made_at FROM stock_adjustments
            ORDER BY made_at DESC, id DESC LIMIT \(max(0, limit))
            """
        ).compactMap { row in
            guard let wood = try Self.stockedWood(in: row) else { return nil }
            return StockAdjustment(
                wood: wood, change: try row["change"], inStockAfter: try row["quantity_after"], note: try row["note"],
                madeAt: Self.date(milliseconds: try row["made_at"]))
        }
    }

    // MARK: - Inside a transaction

    /// Writes a change that is already judged: the stock and its audit row.
    static func book(
        _ change: Int, of wood: StockedWood, inStockBefore: Int, note: String, at now: Date,
        on connection: any SQLConnection
    ) async throws -> StockAdjustment {
        let adjustment = StockAdjustment(
            wood: wood, change: change, inStockAfter: inStockBefore + change, note: note,
            madeAt: date(milliseconds: milliseconds(now)))
        try await connection.run(
            """
            INSERT INTO wood_stock (kind, wood, quantity) VALUES (\(wood.kind), \(wood.wood), \(adjustment.inStockAfter))
            ON CONFLICT (kind, wood) DO UPDATE SET quantity = excluded.quantity
            """)
        try await connection.run(
            """
            INSERT INTO stock_adjustments (kind, wood, change, quantity_after, note, made_at)
            VALUES (\(wood.kind), \(wood.wood), \(change), \(adjustment.inStockAfter), \(note),
                \(milliseconds(adjustment.madeAt)))
            """)
        return adjustment
    }

    static func stockLevels(on connection: any SQLConnection) async throws -> [StockLevel] {
        let inStock = try stock(from: try await connection.rows(allStock))
        // Which stages hold wood and which used it up is the domain's (`StockLevel.levels`); the
        // query only adds up the guitars per stage and wood.
        let rows = try await connection.rows(
            """
            SELECT orders.status, order_lines.body, order_lines.fretboard, SUM(order_lines.quantity) AS guitars
            FROM order_lines JOIN orders ON orders.number = order_lines.order_number
            GROUP BY orders.status, order_lines.body, order_lines.fretboard
            """)
        let guitars = try rows.compactMap { row -> StockLevel.GuitarsAtStage? in
            guard let status = OrderStatus(rawValue: try row["status"]), let body = BodyWood(rawValue: try row["body"]),
                let fretboard = FretboardWood(rawValue: try row["fretboard"])
            else { return nil }
            return StockLevel.GuitarsAtStage(
                status: status, body: body, fretboard: fretboard, guitars: try row["guitars"])
        }
        return StockLevel.levels(inStock: inStock, guitars: guitars)
    }
}
