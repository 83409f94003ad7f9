import Foundation
import Logging
import LuthierDomain
import PostgresNIO

extension PostgresStore {
    /// Places the order `request` describes, as `WorkshopStore.placeOrder` does: one transaction
    /// under the workshop's lock takes every wood it needs and records the order with its lines
    /// and its first stage. Idempotent per checkout: a checkout already ordered returns that
    /// order and writes nothing (under the lock no other instance can be ordering it meanwhile;
    /// the `UNIQUE` checkout id backs that up).
    ///
    /// - Throws: `OrderError.unavailable(missing:)` when the stock falls short of the whole
    ///   order, naming each wood once; `WorkshopStoreError.emptyOrder` for no lines. Nothing is
    ///   written then.
    public func placeOrder(_ request: OrderRequest) async throws -> Order {
        let channel = changesChannel
        return try await write { connection in
            if let existing = try await Self.fetchOrder(
                on: connection, where: .checkoutID, is: request.checkoutID, self.logger)
            {
                return existing
            }
            guard !request.lines.isEmpty else { throw WorkshopStoreError.emptyOrder }
            let needs = WoodNeed.of(request.lines)
            let stock = try await Self.stock(of: needs, on: connection, self.logger)
            let missing = WoodNeed.missing(needs, stock: stock)
            if !missing.isEmpty { throw OrderError.unavailable(missing: missing) }
            for entry in JournalEntry.ranOut(taking: needs, from: stock) {
                try await Self.write(entry, at: self.now(), on: connection, self.logger)
            }
            for need in needs {
                try await connection.run(
                    """
                    UPDATE wood_stock SET quantity = quantity - \(need.count)
                    WHERE kind = \(need.wood.kind) AND wood = \(need.wood.wood)
                    """, self.logger)
            }
            var generator = SystemRandomNumberGenerator()
            let order = Order(
                placing: request, number: try await Self.freeOrderNumber(on: connection, self.logger),
                accessKey: Order.newAccessKey(using: &generator),  // the system's generator: a key is a secret
                // Stored in whole milliseconds; the returned order says exactly what was stored.
                placedAt: Self.date(milliseconds: Self.milliseconds(self.now())))
            try await Self.insert(order, on: connection, self.logger)
            try await Self.notify(.placed(number: order.number), on: channel, connection, self.logger)
            return order
        }
    }

    /// The order numbered `number`, if there is one.
    public func order(number: String) async throws -> Order? {
        try await read { connection in
            try await Self.fetchOrder(on: connection, where: .number, is: number, self.logger)
        }
    }

    // MARK: - Inside a transaction

    /// The columns of `orders`, in the order ``order(from:lines:)`` reads them by name.
    static let orderColumns =
        """
        number, access_key, checkout_id, shipping, currency, rate, base_price_minor, additions_minor, \
        discount_minor, discount_code, shipping_minor, total_minor, status, placed_at, session_key, stage_started_at
        """

    static func insert(_ order: Order, on connection: PostgresConnection, _ logger: Logger) async throws {
        let quote = order.quote
        try await connection.run(
            """
            INSERT INTO orders (\(unescaped: orderColumns)) VALUES (
                \(order.number), \(order.accessKey), \(order.checkoutID), \(order.shipping.rawValue),
                \(order.currency.code), \(order.rate.description), \(quote.basePrice.minorUnits),
                \(quote.additions.minorUnits), \(quote.discount.minorUnits), \(order.discountCode),
                \(quote.shipping.minorUnits), \(quote.total.minorUnits), \(order.status.rawValue),
                \(milliseconds(order.placedAt)), \(order.sessionKey), \(milliseconds(order.stageStartedAt))
            )
            """, logger)
        try await insertStage(
            StageEntry(status: order.status, startedAt: order.stageStartedAt), of: order.number, on: connection,
            logger)
        for (position, line) in order.lines.enumerated() {
            let guitar = line.guitar
            try await connection.run(
                """
                INSERT INTO order_lines (order_number, position, shape, color, body, fretboard, quantity)
                VALUES (\(order.number), \(position), \(guitar.shape.rawValue), \(guitar.color.rawValue),
                    \(guitar.body.rawValue), \(guitar.fretboard.rawValue), \(line.quantity))
                """, logger)
        }
    }

    static func insertStage(
        _ entry: StageEntry, of number: String, on connection: PostgresConnection, _ logger: Logger
    ) async throws {
        try await connection.run(
            """
            INSERT INTO order_stages (order_number, status, started_at, note)
            VALUES (\(number), \(entry.status.rawValue), \(milliseconds(entry.startedAt)), \(entry.note))
            """, logger)
    }

    /// The columns an order is found by: each holds one order at most (`PRIMARY KEY`, `UNIQUE`).
    enum OrderKey: String {
        case number
        case checkoutID = "checkout_id"
    }

    /// The order whose `key` is `value`, if there is one.
    static func fetchOrder(
        on connection: PostgresConnection, where key: OrderKey, is value: String, _ logger: Logger
    ) async throws -> Order? {
        try await fetchOrders(
            on: connection,
            "SELECT \(unescaped: orderColumns) FROM orders WHERE \(unescaped: key.rawValue) = \(value)", logger
        ).first
    }

    /// Every order `query` selects (``orderColumns``), in its order, each with its lines (read
    /// in one more query for them all).
    static func fetchOrders(
        on connection: PostgresConnection, _ query: PostgresQuery, _ logger: Logger
    ) async throws -> [Order] {
        let rows = try await connection.rows(query, logger)
        guard !rows.isEmpty else { return [] }
        let numbers = try rows.map { try $0["number"].decode(String.self) }
        var lines: [String: [PostgresRandomAccessRow]] = [:]
        for line in try await connection.rows(
            """
            SELECT order_number, shape, color, body, fretboard, quantity FROM order_lines
            WHERE order_number = ANY(\(numbers)) ORDER BY order_number, position
            """, logger)
        {
            lines[try line["order_number"].decode(String.self), default: []].append(line)
        }
        return try zip(rows, numbers).map { row, number in try order(from: row, lines: lines[number] ?? []) }
    }

    private static func order(from row: PostgresRandomAccessRow, lines lineRows: [PostgresRandomAccessRow]) throws
        -> Order
    {
        let number = try row["number"].decode(String.self)
        func decode<Value: RawRepresentable>(_ column: String, of row: PostgresRandomAccessRow) throws -> Value
        where Value.RawValue == String {
            let raw = try row[column].decode(String.self)
            guard let value = Value(rawValue: raw) else {
                throw WorkshopStoreError.unreadableOrder(number: number, column: column, value: raw)
            }
            return value
        }
        let currency: Currency = try decode("currency", of: row)
        let rateText = try row["rate"].decode(String.self)
        guard let rate = Decimal(string: rateText, locale: Locale(identifier: "en_US_POSIX")) else {
            throw WorkshopStoreError.unreadableOrder(number: number, column: "rate", value: rateText)
        }
        func money(_ column: String) throws -> Money {
            Money(minorUnits: try row[column].decode(Int.self), currency: currency)
        }
        let lines = try lineRows.map { line in
            CartLine(
                guitar: Guitar(
                    shape: try decode("shape", of: line),
                    color: try decode("color", of: line),
                    body: try decode("body", of: line),
                    fretboard: try decode("fretboard", of: line)
                ),
                quantity: try line["quantity"].decode(Int.self)
            )
        }
        return Order(
            number: number,
            accessKey: try row["access_key"].decode(String.self),
            checkoutID: try row["checkout_id"].decode(String.self),
            lines: lines,
            shipping: try decode("shipping", of: row),
            currency: currency,
            rate: rate,
            discountCode: try row["discount_code"].decode(String?.self),
            quote: Quote(
                basePrice: try money("base_price_minor"),
                additions: try money("additions_minor"),
                discount: try money("discount_minor"),
                shipping: try money("shipping_minor"),
                total: try money("total_minor")
            ),
            status: try decode("status", of: row),
            placedAt: date(milliseconds: try row["placed_at"].decode(Int64.self)),
            stageStartedAt: date(milliseconds: try row["stage_started_at"].decode(Int64.self)),
            sessionKey: try row["session_key"].decode(String.self)
        )
    }

    /// A number of ``Order/newNumber(using:)`` no order holds yet, drawn again on the rare
    /// collision.
    static func freeOrderNumber(on connection: PostgresConnection, _ logger: Logger) async throws -> String {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<16 {
            let number = Order.newNumber(using: &generator)
            let taken = try await connection.value(
                Bool.self, "SELECT EXISTS (SELECT 1 FROM orders WHERE number = \(number))", logger)
            if taken != true { return number }
        }
        throw WorkshopStoreError.noFreeOrderNumber
    }
}
