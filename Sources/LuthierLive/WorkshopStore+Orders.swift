import Foundation
import LuthierDomain
import LuthierFeatures
import SQLMachinery

extension WorkshopStore {
    /// Places the order `request` describes, in one write transaction: takes every guitar's body
    /// blank and fretboard out of stock (`quantity` of each per line) under the workshop's lock,
    /// and records the order (number, access key, currency, exact rate, every amount in minor
    /// units including the discount and its code, shipping, the first stage begun now, time,
    /// checkout id) with its lines, and tells the other instances.
    ///
    /// The lock is held for what must follow one another across orders and instances, the
    /// judgement of stock and its taking, and the commit: the order's own rows (unseen by anyone
    /// until the commit), its notice and the stock judged and taken are one statement on
    /// PostgreSQL. Orders placed at once therefore wait for each other for a statement and a
    /// commit, not a whole order; and they share the commit (``GroupCommit``): the orders that
    /// arrive while one is being written are written together next, one transaction and one
    /// `fsync` for all, each in a savepoint of its own, so that one refused (its wood short, its
    /// checkout ordered already) is undone alone. Each is answered once that commit is made.
    ///
    /// Idempotent per checkout: if `request.checkoutID` was already ordered, that order is
    /// returned unchanged and nothing is written — so a double click, a retried post or fifty
    /// concurrent posts make one order (the `UNIQUE` checkout id refuses every write but the
    /// first, and the others answer with its order). It is not looked up first: the order's
    /// first statement is the one the `UNIQUE` refuses, so a repeat costs that statement and the
    /// lookup, and a first order (nearly every one) costs no lookup at all.
    ///
    /// The order's number is drawn at random and not looked up first: the `PRIMARY KEY` refuses a
    /// number already taken (one chance in hundreds of millions), and the order is then placed
    /// again with another, at most ``numberDraws`` times.
    ///
    /// - Parameter beforeCommit: runs last inside the transaction, so that tests can fail or kill
    ///   the process at the worst moment.
    /// - Throws: `OrderError.unavailable(missing:)` when the stock of any wood is short of what the
    ///   whole order needs, naming each such wood once; nothing is written then.
    ///   `WorkshopStoreError.emptyOrder` for a request without lines.
    public func placeOrder(
        _ request: OrderRequest, beforeCommit: @escaping @Sendable () async throws -> Void = {}
    ) async throws -> Order {
        guard !request.lines.isEmpty else { throw WorkshopStoreError.emptyOrder }
        for draw in 1...Self.numberDraws {
            do {
                let (order, soldOut) = try await orderCommits.commit(
                    OrderPlacement(request: request, beforeCommit: beforeCommit)
                ).get()
                soldOutAfterOrders.leave(soldOut, for: order.number)
                return order
            } catch  where database.isUniqueViolation(error) {
                // Another request ordered this checkout first: its order is the answer. Otherwise
                // the number drawn was taken: another draw.
                if let existing = try await order(checkoutID: request.checkoutID) { return existing }
                if draw == Self.numberDraws { throw WorkshopStoreError.noFreeOrderNumber }
            }
        }
        throw WorkshopStoreError.noFreeOrderNumber
    }

    /// How many numbers an order draws before it gives up (each taken already: practically never).
    static let numberDraws = 4

    /// The woods out of stock as the order numbered `number` left them, when it was placed here
    /// moments ago (its own statement read them, so this asks the database nothing); otherwise
    /// the woods out of stock now (``soldOut()``).
    public func soldOut(afterOrder number: String) async throws -> Set<StockedWood> {
        if let soldOut = soldOutAfterOrders.take(for: number) { return soldOut }
        return try await soldOut()
    }

    /// The order numbered `number` ("LU-7K3M9Q"), if there is one.
    public func order(number: String) async throws -> Order? {
        try await database.read { connection in try await Self.fetchOrder(on: connection, number: number) }
    }

    /// The order placed from checkout `checkoutID`, if it was ordered.
    public func order(checkoutID: String) async throws -> Order? {
        try await database.read { connection in
            try await Self.fetchOrders(
                on: connection, "SELECT \(sql: Self.orderColumns) FROM orders WHERE checkout_id = \(checkoutID)"
            ).first
        }
    }

    // MARK: - Inside a transaction

    /// Places `placements` in one write transaction, in their order, and answers each: its order
    /// and the woods out of stock once it took its own, or why it was refused.
    ///
    /// An order alone is the whole transaction: refused, it rolls it back. Several each go in a
    /// savepoint: one refused is rolled back to its savepoint and the others are committed. What
    /// fails the transaction itself (the connection, the commit) fails them all.
    static func place(
        _ placements: [OrderPlacement], on database: any SQLDatabase, now: @escaping @Sendable () -> Date
    ) async throws -> [Result<PlacedOrder, any Error>] {
        try await database.write(lock: nil) { connection in
            guard placements.count > 1 else {
                return try await [.success(place(placements[0], on: connection, now: now))]
            }
            var answers: [Result<PlacedOrder, any Error>] = []
            answers.reserveCapacity(placements.count)
            for (index, placement) in placements.enumerated() {
                // Not released: the commit ends them all, and a release would be one more round
                // trip per order on PostgreSQL.
                let savepoint = "order_\(index)"
                try await connection.run("SAVEPOINT \(sql: savepoint)")
                do {
                    answers.append(.success(try await place(placement, on: connection, now: now)))
                } catch {
                    try await connection.run("ROLLBACK TO SAVEPOINT \(sql: savepoint)")
                    answers.append(.failure(error))
                }
            }
            return answers
        }
    }

    /// The order, and the woods out of stock once it took its own.
    private static func place(
        _ placement: OrderPlacement, on connection: any SQLConnection, now: @Sendable () -> Date
    ) async throws -> PlacedOrder {
        let request = placement.request
        var generator = SystemRandomNumberGenerator()
        let order = Order(
            placing: request, number: Order.newNumber(using: &generator),
            accessKey: Order.newAccessKey(using: &generator),  // the system's generator: a key is a secret
            // Stored in whole milliseconds; the returned order says exactly what was stored.
            placedAt: date(milliseconds: milliseconds(now())))
        // Written and told in the statement that takes the lock, so that the lock is held for one
        // statement and the commit (a notification goes out when its transaction commits, never if
        // it rolls back).
        let needs = WoodNeed.of(request.lines)
        let taken = try await take(
            needs, after: insertions(of: order), telling: WorkshopChange.placed(number: order.number).payload,
            on: connection)
        for entry in JournalEntry.ranOut(taking: needs, from: taken.before) {
            try await Self.write(entry, at: now(), on: connection)
        }
        try await placement.beforeCommit()
        return (order, taken.soldOut)
    }

    /// Takes `needs` out of stock in one statement after `writes` (the order's rows, in the same
    /// statement on PostgreSQL), each wood only where enough of it is left, and tells `payload`;
    /// returns the stock of those woods as it was before, and every wood out of stock after (the
    /// statement returns the rows out of stock beside those it takes from, rewritten as they are,
    /// so no read follows the order to learn them). Throws `OrderError.unavailable` naming the
    /// woods short of what the whole order needs when any is (its transaction must then be rolled
    /// back). The statement takes the workshop's lock before it reads the stock, and the
    /// transaction holds it to its end.
    static func take(
        _ needs: [WoodNeed], after writes: [SQLStatement], telling payload: String, on connection: any SQLConnection
    ) async throws -> (before: [StockedWood: Int], soldOut: Set<StockedWood>) {
        let woods: [SQLStatement] = needs.map { "kind = \($0.wood.kind) AND wood = \($0.wood.wood)" }
        let amounts = SQLStatement.joined(
            zip(woods, needs).map { wood, need in "WHEN \(wood) THEN \(need.count)" }, separator: " ")
        let enough = SQLStatement.joined(
            zip(woods, needs).map { wood, need in "(\(wood) AND quantity >= \(need.count))" }, separator: " OR ")
        let needed = SQLStatement.joined(woods.map { "(\($0))" }, separator: " OR ")
        let rows = try await connection.rows(
            after: writes,
            then: """
                UPDATE wood_stock SET quantity = quantity - CASE \(amounts) ELSE 0 END
                WHERE \(connection.holding(.workshop)) AND ((\(enough)) OR (quantity <= 0 AND NOT (\(needed))))
                RETURNING kind, wood, quantity
                """, telling: payload, on: .workshop)
        var after: [StockedWood: Int] = [:]
        var soldOut: Set<StockedWood> = []
        let neededWoods = Set(needs.map(\.wood))
        for row in rows {
            guard let wood = try stockedWood(in: row) else { continue }
            let quantity: Int = try row["quantity"]
            if quantity <= 0 { soldOut.insert(wood) }
            if neededWoods.contains(wood) { after[wood] = quantity }
        }
        guard after.count == needs.count else {
            // Some wood is short: the stock as it stands (nothing above changes it, since the
            // transaction is rolled back) says which.
            let stock = try stock(from: try await connection.rows(allStock))
            let missing = WoodNeed.missing(needs, stock: stock)
            throw OrderError.unavailable(
                missing: missing.isEmpty ? needs.filter { after[$0.wood] == nil }.map(\.wood.stockName) : missing)
        }
        return (Dictionary(uniqueKeysWithValues: needs.map { ($0.wood, (after[$0.wood] ?? 0) + $0.count) }), soldOut)
    }

    /// The columns of `orders`, in the order ``insert(_:on:)`` writes them.
    static let orderColumns =
        """
        number, access_key, checkout_id, shipping, currency, rate, base_price_minor, additions_minor, \
        discount_minor, discount_code, shipping_minor, total_minor, status, placed_at, session_key, stage_started_at
        """

    /// The statements that write `order`: its row, its first stage and its lines (each in one).
    static func insertions(of order: Order) -> [SQLStatement] {
        let quote = order.quote
        let lines = SQLStatement.joined(
            order.lines.enumerated().map { position, line in
                let guitar = line.guitar
                return """
                    (\(order.number), \(position), \(guitar.shape.rawValue), \(guitar.color.rawValue),
                        \(guitar.body.rawValue), \(guitar.fretboard.rawValue), \(line.quantity))
                    """
            }, separator: ", ")
        return [
            """
            INSERT INTO orders (\(sql: orderColumns)) VALUES (
                \(order.number), \(order.accessKey), \(order.checkoutID), \(order.shipping.rawValue),
                \(order.currency.code), \(order.rate.description), \(quote.basePrice.minorUnits),
                \(quote.additions.minorUnits), \(quote.discount.minorUnits), \(order.discountCode),
                \(quote.shipping.minorUnits), \(quote.total.minorUnits), \(order.status.rawValue),
                \(milliseconds(order.placedAt)), \(order.sessionKey), \(milliseconds(order.stageStartedAt))
            )
            """,
            stageInsertion(StageEntry(status: order.status, startedAt: order.stageStartedAt), of: order.number),
            "INSERT INTO order_lines (order_number, position, shape, color, body, fretboard, quantity) VALUES \(lines)",
        ]
    }

    static func insertStage(
        _ entry: StageEntry, of number: String, in term: FloorTerm? = nil, on connection: any SQLConnection
    ) async throws {
        try await connection.run(stageInsertion(entry, of: number, in: term))
    }

    static func stageInsertion(_ entry: StageEntry, of number: String, in term: FloorTerm? = nil) -> SQLStatement {
        """
        INSERT INTO order_stages (order_number, status, started_at, note, term)
        VALUES (\(number), \(entry.status.rawValue), \(milliseconds(entry.startedAt)), \(entry.note), \(term?.number))
        """
    }

    /// The order numbered `number`, if there is one.
    static func fetchOrder(on connection: any SQLConnection, number: String) async throws -> Order? {
        try await fetchOrders(on: connection, "SELECT \(sql: orderColumns) FROM orders WHERE number = \(number)").first
    }

    /// Every order `query` selects (``orderColumns``), in its order, each with its lines (read
    /// in one more query for them all).
    static func fetchOrders(on connection: any SQLConnection, _ query: SQLStatement) async throws -> [Order] {
        let rows = try await connection.rows(query)
        guard !rows.isEmpty else { return [] }
        let numbers: [String] = try rows.map { try $0["number"] }
        var lines: [String: [SQLRow]] = [:]
        for line in try await connection.rows(
            """
            SELECT order_number, shape, color, body, fretboard, quantity FROM order_lines
            WHERE order_number IN \(list: numbers) ORDER BY order_number, position
            """)
        {
            lines[try line["order_number"], default: []].append(line)
        }
        return try zip(rows, numbers).map { row, number in try order(from: row, lines: lines[number] ?? []) }
    }

    private static func order(from row: SQLRow, lines lineRows: [SQLRow]) throws -> Order {
        let number: String = try row["number"]
        func decode<Value: RawRepresentable>(_ column: String, of row: SQLRow) throws -> Value
        where Value.RawValue == String {
            let raw: String = try row[column]
            guard let value = Value(rawValue: raw) else {
                throw WorkshopStoreError.unreadableOrder(number: number, column: column, value: raw)
            }
            return value
        }
        let currency: Currency = try decode("currency", of: row)
        let rateText: String = try row["rate"]
        guard let rate = Decimal(string: rateText, locale: Locale(identifier: "en_US_POSIX")) else {
            throw WorkshopStoreError.unreadableOrder(number: number, column: "rate", value: rateText)
        }
        func money(_ column: String) throws -> Money { Money(minorUnits: try row[column], currency: currency) }
        let lines = try lineRows.map { line in
            CartLine(
                guitar: Guitar(
                    shape: try decode("shape", of: line),
                    color: try decode("color", of: line),
                    body: try decode("body", of: line),
                    fretboard: try decode("fretboard", of: line)
                ),
                quantity: try line["quantity"]
            )
        }
        return Order(
            number: number,
            accessKey: try row["access_key"],
            checkoutID: try row["checkout_id"],
            lines: lines,
            shipping: try decode("shipping", of: row),
            currency: currency,
            rate: rate,
            discountCode: try row["discount_code"],
            quote: Quote(
                basePrice: try money("base_price_minor"),
                additions: try money("additions_minor"),
                discount: try money("discount_minor"),
                shipping: try money("shipping_minor"),
                total: try money("total_minor")
            ),
            status: try decode("status", of: row),
            placedAt: date(milliseconds: try row["placed_at"]),
            stageStartedAt: date(milliseconds: try row["stage_started_at"]),
            sessionKey: try row["session_key"]
        )
    }
}

/// An order to place, with the hook a test runs last inside its transaction.
struct OrderPlacement: Sendable {
    let request: OrderRequest
    let beforeCommit: @Sendable () async throws -> Void
}

/// An order placed, and the woods out of stock once it took its own.
typealias PlacedOrder = (order: Order, soldOut: Set<StockedWood>)
