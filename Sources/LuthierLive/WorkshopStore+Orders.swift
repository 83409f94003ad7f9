import Foundation
import GRDB
import LuthierDomain

extension WorkshopStore {
    /// Places the order `request` describes, in one write transaction: takes its body blank and
    /// fretboard out of stock and records the order (number, access key, options, currency,
    /// exact rate, every amount in minor units, shipping, status "placed", time, checkout id).
    ///
    /// Idempotent per checkout: if `request.checkoutID` was already ordered, that order is
    /// returned unchanged and nothing is written — so a double click, a retried post or fifty
    /// concurrent posts make one order. (Writes are serialized, and the `UNIQUE` checkout id
    /// backs that up against another process writing the same file.)
    ///
    /// - Throws: `OrderError.unavailable(missing:)` when a wood ran out; nothing is written then.
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
        if case .unavailable(let missing) = try Self.availability(of: request.guitar, in: db) {
            throw OrderError.unavailable(missing: missing)
        }
        for wood in StockedWood.parts(of: request.guitar) {
            try db.execute(
                sql: "UPDATE wood_stock SET quantity = quantity - 1 WHERE kind = ? AND wood = ?",
                arguments: [wood.kind, wood.wood]
            )
        }
        let order = Order(
            number: try Self.freeOrderNumber(in: db),
            accessKey: Self.newAccessKey(),
            checkoutID: request.checkoutID,
            guitar: request.guitar,
            shipping: request.shipping,
            currency: request.rate.currency,
            rate: request.rate.perDollar,
            quote: request.quote,
            status: .placed,
            // Stored in whole milliseconds; the returned order says exactly what was stored.
            placedAt: Self.date(milliseconds: Self.milliseconds(now())),
            sessionKey: request.sessionKey
        )
        try Self.insert(order, in: db)
        try beforeCommit()
        return order
    }

    static func insert(_ order: Order, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO orders (
                    number, access_key, checkout_id, shape, color, body, fretboard, shipping, currency, rate,
                    base_price_minor, additions_minor, shipping_minor, total_minor, status, placed_at, session_key
                ) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                order.number, order.accessKey, order.checkoutID,
                order.guitar.shape.rawValue, order.guitar.color.rawValue,
                order.guitar.body.rawValue, order.guitar.fretboard.rawValue,
                order.shipping.rawValue, order.currency.code, order.rate.description,
                order.quote.basePrice.minorUnits, order.quote.additions.minorUnits,
                order.quote.shipping.minorUnits, order.quote.total.minorUnits,
                order.status.rawValue, milliseconds(order.placedAt), order.sessionKey,
            ]
        )
    }

    static func fetchOrder(in db: Database, where column: String, is value: String) throws -> Order? {
        // `column` is one of this file's literals, never user input.
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM orders WHERE \(column) = ?", arguments: [value])
        else { return nil }
        return try order(from: row)
    }

    private static func order(from row: Row) throws -> Order {
        let number: String = row["number"]
        func decode<Value: RawRepresentable>(_ column: String) throws -> Value where Value.RawValue == String {
            let raw: String = row[column]
            guard let value = Value(rawValue: raw) else {
                throw WorkshopStoreError.unreadableOrder(number: number, column: column, value: raw)
            }
            return value
        }
        let currency: Currency = try decode("currency")
        let rateText: String = row["rate"]
        guard let rate = Decimal(string: rateText, locale: Locale(identifier: "en_US_POSIX")) else {
            throw WorkshopStoreError.unreadableOrder(number: number, column: "rate", value: rateText)
        }
        func money(_ column: String) -> Money { Money(minorUnits: row[column], currency: currency) }
        return Order(
            number: number,
            accessKey: row["access_key"],
            checkoutID: row["checkout_id"],
            guitar: Guitar(
                shape: try decode("shape"),
                color: try decode("color"),
                body: try decode("body"),
                fretboard: try decode("fretboard")
            ),
            shipping: try decode("shipping"),
            currency: currency,
            rate: rate,
            quote: Quote(
                storedBasePrice: money("base_price_minor"),
                additions: money("additions_minor"),
                shipping: money("shipping_minor"),
                total: money("total_minor")
            ),
            status: try decode("status"),
            placedAt: date(milliseconds: row["placed_at"]),
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

    /// Characters of order numbers: no 0/O or 1/I, so a number read over the phone is unambiguous.
    static let orderNumberAlphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")

    /// "LU-" and 6 random characters (32⁶ ≈ 1.07 billion numbers), redrawn on the rare collision.
    static func freeOrderNumber(in db: Database) throws -> String {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            let characters = (0..<6).map { _ in
                orderNumberAlphabet[Int.random(in: 0..<orderNumberAlphabet.count, using: &generator)]
            }
            let number = "LU-" + String(characters)
            let taken = try Bool.fetchOne(
                db,
                sql: "SELECT EXISTS (SELECT 1 FROM orders WHERE number = ?)",
                arguments: [number]
            )
            if taken != true { return number }
        }
        throw WorkshopStoreError.noFreeOrderNumber
    }

    /// 128 random bits as 32 lowercase hex digits: the secret part of an order's link.
    static func newAccessKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return [generator.next(), generator.next()]
            .map { (word: UInt64) -> String in
                let hex = String(word, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }
            .joined()
    }

    static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension Quote {
    /// A quote as an order stored it, amount by amount (the domain only builds quotes by pricing).
    fileprivate init(storedBasePrice basePrice: Money, additions: Money, shipping: Money, total: Money) {
        self.init(guitar: .standard, shipping: ShippingOption(method: .pickup, price: .dollars(0)), rate: .dollar())
        self.basePrice = basePrice
        self.additions = additions
        self.shipping = shipping
        self.total = total
    }
}
