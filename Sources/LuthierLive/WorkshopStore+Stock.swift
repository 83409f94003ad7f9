import Foundation
import GRDB
import LuthierDomain

/// The wood store as the shop's admin keeps it: every level, and audited adjustments.
extension WorkshopStore {
    /// Every stock line, in the pickers' order (`StockedWood.allCases`), with what open orders
    /// hold and what finished guitars took.
    public func stockLevels() throws -> [StockLevel] {
        try writer.read { db in try Self.stockLevels(in: db) }
    }

    /// Books `change` pieces of `wood` (positive: a restock; negative: a correction), with `note`,
    /// in one write transaction: the stock and its audit row together or neither.
    ///
    /// - Throws: `StockRefusal` when the change is 0, larger than `StockLevel.largestChange`, or
    ///   would take the stock below zero or above `StockLevel.mostInStock`; nothing is written.
    /// - Returns: the adjustment as booked.
    public func adjustStock(of wood: StockedWood, by change: Int, note: String) throws -> StockAdjustment {
        try writer.write { db in try self.adjustStock(of: wood, by: change, note: note, in: db) }
    }

    /// The latest `limit` adjustments, newest first.
    public func stockAdjustments(limit: Int) throws -> [StockAdjustment] {
        try writer.read { db in try Self.stockAdjustments(limit: limit, in: db) }
    }

    // MARK: - Inside a database access

    func adjustStock(of wood: StockedWood, by change: Int, note: String, in db: Database) throws -> StockAdjustment {
        let levels = try Self.stockLevels(in: db)
        let level = levels.first { $0.wood == wood } ?? StockLevel(wood: wood, inStock: 0, reserved: 0, taken: 0)
        if let refusal = level.refusal(of: change) { throw refusal }
        let booked = try Self.book(change, of: wood, inStockBefore: level.inStock, note: note, at: now(), in: db)
        for entry in JournalEntry.adjusted(wood, by: change, inStockAfter: booked.inStockAfter) {
            try Self.write(entry, at: booked.madeAt, in: db)
        }
        return booked
    }

    /// Writes a change that is already judged: the stock and its audit row.
    static func book(
        _ change: Int, of wood: StockedWood, inStockBefore: Int, note: String, at now: Date, in db: Database
    ) throws -> StockAdjustment {
        let adjustment = StockAdjustment(
            wood: wood, change: change, inStockAfter: inStockBefore + change, note: note,
            madeAt: date(milliseconds: milliseconds(now)))
        try db.execute(
            sql: """
                INSERT INTO wood_stock (kind, wood, quantity) VALUES (?, ?, ?)
                ON CONFLICT (kind, wood) DO UPDATE SET quantity = excluded.quantity
                """,
            arguments: [wood.kind, wood.wood, adjustment.inStockAfter]
        )
        try db.execute(
            sql: """
                INSERT INTO stock_adjustments (kind, wood, change, quantity_after, note, made_at)
                VALUES (?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                wood.kind, wood.wood, change, adjustment.inStockAfter, note, milliseconds(adjustment.madeAt),
            ]
        )
        return adjustment
    }

    static func stockLevels(in db: Database) throws -> [StockLevel] {
        var inStock: [StockedWood: Int] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT kind, wood, quantity FROM wood_stock") {
            if let wood = stockedWood(in: row) {
                inStock[wood] = row["quantity"]
            }
        }
        // Which stages hold wood and which used it up is the domain's (`StockLevel.levels`); the
        // query only adds up the guitars per stage and wood.
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT orders.status, order_lines.body, order_lines.fretboard, SUM(order_lines.quantity) AS guitars
                FROM order_lines JOIN orders ON orders.number = order_lines.order_number
                GROUP BY orders.status, order_lines.body, order_lines.fretboard
                """)
        let guitars = rows.compactMap { row -> StockLevel.GuitarsAtStage? in
            guard let status = OrderStatus(rawValue: row["status"]), let body = BodyWood(rawValue: row["body"]),
                let fretboard = FretboardWood(rawValue: row["fretboard"])
            else { return nil }
            return StockLevel.GuitarsAtStage(status: status, body: body, fretboard: fretboard, guitars: row["guitars"])
        }
        return StockLevel.levels(inStock: inStock, guitars: guitars)
    }

    /// The stock lines with nothing in stock (the `wood_stock` table alone).
    static func soldOut(in db: Database) throws -> Set<StockedWood> {
        Set(
            try Row.fetchAll(db, sql: "SELECT kind, wood FROM wood_stock WHERE quantity <= 0").compactMap { row in
                stockedWood(in: row)
            })
    }

    /// The stock line a row's `kind` and `wood` columns name, if this version knows it.
    private static func stockedWood(in row: Row) -> StockedWood? {
        StockedWood(id: "\(row["kind"] as String)/\(row["wood"] as String)")
    }

    static func stockAdjustments(limit: Int, in db: Database) throws -> [StockAdjustment] {
        try Row.fetchAll(
            db,
            sql: "SELECT * FROM stock_adjustments ORDER BY made_at DESC, id DESC LIMIT ?",
            arguments: [max(0, limit)]
        ).compactMap { row in
            guard let wood = stockedWood(in: row) else { return nil }
            return StockAdjustment(
                wood: wood, change: row["change"], inStockAfter: row["quantity_after"], note: row["note"],
                madeAt: date(milliseconds: row["made_at"]))
        }
    }
}
