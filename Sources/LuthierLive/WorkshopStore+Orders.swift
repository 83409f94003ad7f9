import Foundation
import GRDB
import LuthierDomain

extension WorkshopStore {
    /// Places the order `request` describes, in one write transaction: takes every guitar's body
    /// blank and fretboard out of stock (`quantity` of each per line) and records the order
    /// (number, access key, currency, exact rate, every amount in minor units including the
    /// discount and its code, shipping, the first stage (wood selection, begun now), time, checkout
    /// id) with its lines.
    ///
    /// Idempotent per checkout: if `request.checkoutID` was already ordered, that order is
    /// returned unchanged and nothing is written — so a double click, a retried post or fifty
    /// concurrent posts make one order. (Writes are serialized, and the `UNIQUE` checkout id
    /// backs that up against another process writing the same file.)
    ///
    /// - Throws: `OrderError.unavailable(missing:)` when the stock of any wood is short of what the
    ///   whole order needs, naming each such wood once; nothing is written then.
    ///   `WorkshopStoreError.emptyOrder` for a request without lines.
    public func placeOrder(_ request: OrderRequest) throws -> Order {
        try placeOrder(request, beforeCommit: {})
    }

    /// The order numbered `number` ("LU-7K3M9Q"), if there is one.
    public func order(number: String) throws -> Order? {
        try writer.read { db in try Self.fetchOrder(in: db, where: "number", is: number) }
    }

    /// The order placed from checkout `checkoutID`, if it was ordered.
    public func order(checkoutID: String) throws -> Order? {
        try writer.read { db in try Self.fetchOrder(in: db, where: "checkout_id", is: checkoutID) }
    }

    // MARK: - Internals

    /// `placeOrder`, with `beforeCommit` run last inside the transaction, so that tests can fail
    /// or kill the process at the worst moment.
    func placeOrder(_ request: OrderRequest, beforeCommit: () throws -> Void) throws -> Order {
        do {
            return try writer.write { db in try self.placeOrder(request, in: db, beforeCommit: beforeCommit) }
        } catch let error where Self.isDuplicateCheckout(error) {
            return try existingOrder(checkoutID: request.checkoutID, after: error)
        }
    }

    /// `placeOrder` without holding a Swift concurrency thread while the writer is busy.
    func placeOrderAsync(_ request: OrderRequest) async throws -> Order {
        do {
            return try await writer.write { db in try self.placeOrder(request, in: db, beforeCommit: {}) }
        } catch let error where Self.isDuplicateCheckout(error) {
            return try existingOrder(checkoutID: request.checkoutID, after: error)
        }
    }

    /// The body of the order transaction.
    func placeOrder(_ request: OrderRequest, in db: Database, beforeCommit: () throws -> Void) throws -> Order {
        if let existing = try Self.fetchOrder(in: db, where: "checkout_id", is: request.checkoutID) {
            return existing
        }
        guard !request.lines.isEmpty else { throw WorkshopStoreError.emptyOrder }
        let needs = WoodNeed.of(request.lines)
        let stock = try Self.stock(of: needs, in: db)
        let missing = WoodNeed.missing(needs, stock: stock)
        if !missing.isEmpty { throw OrderError.unavailable(missing: missing) }
        for entry in JournalEntry.ranOut(taking: needs, from: stock) { try Self.write(entry, at: now(), in: db) }
        for need in needs {
            try db.execute(
                sql: "UPDATE wood_stock SET quantity = quantity - ? WHERE kind = ? AND wood = ?",
                arguments: [need.count, need.wood.kind, need.wood.wood]
            )
        }
        let order = Order(
            placing: request, number: try Self.freeOrderNumber(in: db),
            accessKey: Self.newAccessKey(),  // the system's generator: a key is a secret
            // Stored in whole milliseconds; the returned order says exactly what was stored.
            placedAt: Self.date(milliseconds: Self.milliseconds(now())))
        try Self.insert(order, in: db)
        try beforeCommit()
        return order
    }

    static func insert(_ order: Order, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO orders (
                    number, access_key, checkout_id, shipping, currency, rate,
                    base_price_minor, additions_minor, discount_minor, discount_code, shipping_minor, total_minor,
                    status, placed_at, session_key, stage_started_at
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                order.number, order.accessKey, order.checkoutID,
                order.shipping.rawValue, order.currency.code, order.rate.description,
                order.quote.basePrice.minorUnits, order.quote.additions.minorUnits,
                order.quote.discount.minorUnits, order.discountCode,
                order.quote.shipping.minorUnits, order.quote.total.minorUnits,
                order.status.rawValue, milliseconds(order.placedAt), order.sessionKey,
                milliseconds(order.stageStartedAt),
            ]
        )
        try insertStage(StageEntry(status: order.status, startedAt: order.stageStartedAt), of: order.number, in: db)
        for (position, line) in order.lines.enumerated() {
            try db.execute(
                sql: """
                    INSERT INTO order_lines (order_number, position, shape, color, body, fretboard, quantity)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    order.number, position,
                    line.guitar.shape.rawValue, line.guitar.color.rawValue,
                    line.guitar.body.rawValue, line.guitar.fretboard.rawValue,
                    line.quantity,
                ]
            )
        }
    }

    static func fetchOrder(in db: Database, where column: String, is value: String) throws -> Order? {
        // `column` is one of this file's literals, never user input.
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM orders WHERE \(column) = ?", arguments: [value])
        else { return nil }
        let number: String = row["number"]
        let lineRows = try Row.fetchAll(
            db,
            sql: "SELECT * FROM order_lines WHERE order_number = ? ORDER BY position",
            arguments: [number]
        )
        return try order(from: row, lines: lineRows)
    }

    /// Every order `sql` selects (whole `orders` rows), in its order, each with its lines.
    static func fetchOrders(in db: Database, sql: String, arguments: StatementArguments = []) throws -> [Order] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            let lineRows = try Row.fetchAll(
                db,
                sql: "SELECT * FROM order_lines WHERE order_number = ? ORDER BY position",
                arguments: [row["number"] as String]
            )
            return try order(from: row, lines: lineRows)
        }
    }

    private static func order(from row: Row, lines lineRows: [Row]) throws -> Order {
        let number: String = row["number"]
        func decode<Value: RawRepresentable>(_ column: String, of row: Row) throws -> Value
        where Value.RawValue == String {
            let raw: String = row[column]
            guard let value = Value(rawValue: raw) else {
                throw WorkshopStoreError.unreadableOrder(number: number, column: column, value: raw)
            }
            return value
        }
        let currency: Currency = try decode("currency", of: row)
        let rateText: String = row["rate"]
        guard let rate = Decimal(string: rateText, locale: Locale(identifier: "en_US_POSIX")) else {
            throw WorkshopStoreError.unreadableOrder(number: number, column: "rate", value: rateText)
        }
        func money(_ column: String) -> Money { Money(minorUnits: row[column], currency: currency) }
        let lines = try lineRows.map { line in
            CartLine(
                guitar: Guitar(
                    shape: try decode("shape", of: line),
                    color: try decode("color", of: line),
                    body: try decode("body", of: line),
                    fretboard: try decode("fretboard", of: line)
                ),
                quantity: line["quantity"]
            )
        }
        return Order(
            number: number,
            accessKey: row["access_key"],
            checkoutID: row["checkout_id"],
            lines: lines,
            shipping: try decode("shipping", of: row),
            currency: currency,
            rate: rate,
            discountCode: row["discount_code"],
            quote: Quote(
                basePrice: money("base_price_minor"),
                additions: money("additions_minor"),
                discount: money("discount_minor"),
                shipping: money("shipping_minor"),
                total: money("total_minor")
            ),
            status: try decode("status", of: row),
            placedAt: date(milliseconds: row["placed_at"]),
            stageStartedAt: date(milliseconds: row["stage_started_at"]),
            sessionKey: row["session_key"]
        )
    }

    /// After a `UNIQUE` clash on the checkout id (another connection ordered it first), the order
    /// that won.
    private func existingOrder(checkoutID: String, after error: any Error) throws -> Order {
        guard let existing = try order(checkoutID: checkoutID) else { throw error }
        return existing
    }

    static func isDuplicateCheckout(_ error: any Error) -> Bool {
        guard let error = error as? DatabaseError else { return false }
        return error.extendedResultCode == .SQLITE_CONSTRAINT_UNIQUE
            && (error.message ?? "").contains("orders.checkout_id")
    }

    /// A number of ``Order/newNumber(using:)`` that no order holds yet, drawn again on the rare
    /// collision.
    static func freeOrderNumber(in db: Database) throws -> String {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            let number = Order.newNumber(using: &generator)
            let taken = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM orders WHERE number = ?)",
                arguments: [number]
            )
            if taken != true { return number }
        }
        throw WorkshopStoreError.noFreeOrderNumber
    }

    static func newAccessKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return Order.newAccessKey(using: &generator)
    }

    static func milliseconds(_ date: Date) -> Int64 {
        WorkshopPace.milliseconds(date)
    }

    static func date(milliseconds: Int64) -> Date {
        WorkshopPace.date(milliseconds: milliseconds)
    }
}
