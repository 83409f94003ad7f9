import Foundation
import LuthierDomain
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// The v2 migration on a real v1 database: made by running only the v1 migration, filled the way
/// the v1 server filled it, then opened by this version.
@Suite struct WorkshopStoreMigrationTests {
    static let v1 = "v1-wood-stock-and-orders"

    /// A v1 row: Sky Long V, Koa and Ebony, Express, in euros at 0.83 (2000 + 425 options + 250
    /// shipping dollars: 166,000 + 35,275 + 20,750 = 222,025 cents).
    static let v1Order = """
        INSERT INTO orders (
            number, access_key, checkout_id, shape, color, body, fretboard, shipping, currency, rate,
            base_price_minor, additions_minor, shipping_minor, total_minor, status, placed_at, session_key
        ) VALUES (
            'LU-V1V1V1', '0123456789abcdef0123456789abcdef', 'checkout-v1', 'longV', 'sky', 'koa', 'ebony',
            'express', 'EUR', '0.83', 166000, 35275, 20750, 222025, 'placed', 1750000000250, 'session-v1'
        )
        """

    @Test func aV1OrderBecomesAOneLineOrderWithoutADiscount() async throws {
        try await withTemporaryDatabasePath { path in
            do {
                let old = try SQLiteDatabase(path: path, migratingUpTo: Self.v1)
                #expect(try old.appliedMigrations() == [Self.v1])
                #expect(try old.tableNames() == ["wood_stock", "orders"])
                try old.execute(sql: Self.v1Order)
                try old.execute(sql: "UPDATE wood_stock SET quantity = 5 WHERE kind = 'body' AND wood = 'koa'")
            }

            let store = try WorkshopStore(path: path)
            #expect(try store.sqlite.appliedMigrations() == WorkshopStoreTests.migrations)
            #expect(try store.sqlite.tableNames() == WorkshopStoreTests.tables)
            #expect(
                try store.sqlite.columnNames(in: "orders") == [
                    "number", "access_key", "checkout_id", "shipping", "currency", "rate",
                    "base_price_minor", "additions_minor", "discount_minor", "discount_code", "shipping_minor",
                    "total_minor", "status", "placed_at", "session_key", "stage_started_at",
                ])

            let guitar = Guitar(shape: .longV, color: .sky, body: .koa, fretboard: .ebony)
            let euros = { (minorUnits: Int) in Money(minorUnits: minorUnits, currency: .eur) }
            let expected = Order(
                number: "LU-V1V1V1",
                accessKey: "0123456789abcdef0123456789abcdef",
                checkoutID: "checkout-v1",
                lines: [CartLine(guitar: guitar, quantity: 1)],
                shipping: .express,
                currency: .eur,
                rate: try #require(Decimal(string: "0.83")),
                discountCode: nil,
                quote: Quote(
                    basePrice: euros(166_000), additions: euros(35_275), discount: euros(0), shipping: euros(20_750),
                    total: euros(222_025)),
                status: .woodSelection,
                placedAt: OrderFixture.placedAt,
                sessionKey: "session-v1"
            )
            #expect(try await store.order(number: "LU-V1V1V1") == expected)
            #expect(try await store.order(checkoutID: "checkout-v1") == expected)
            // The v1 server's own pricing of that guitar agrees with the migrated row.
            let price = Quote(
                guitar: guitar, shipping: ShippingOption(method: .express, price: ShippingMethod.express.price),
                rate: ExchangeRate(currency: .eur, perDollar: expected.rate, asOf: OrderFixture.placedAt))
            #expect(price == expected.quote)
            // Stock and backlog carry over; nothing was reseeded.
            #expect(try await store.stock(of: .body(.koa)) == 5)
            #expect(try await store.openOrderCount() == 1)

            // The migrated order keeps its checkout: ordering it again returns it and takes nothing.
            let again = try await store.placeOrder(OrderFixture.request(checkoutID: "checkout-v1", guitar: guitar))
            #expect(again == expected)
            #expect(try await store.stock(of: .body(.koa)) == 5)
            // And new orders go into the new tables beside it.
            let next = try await store.placeOrder(
                OrderFixture.request(checkoutID: "after-v2", lines: [CartLine(guitar: guitar, quantity: 2)]))
            #expect(try await store.order(number: next.number) == next)
            #expect(try store.sqlite.rowCount(in: "order_lines") == 2)
            #expect(try await store.stock(of: .body(.koa)) == 3)
        }
    }

    @Test func anEmptyV1DatabaseMigratesToo() async throws {
        try await withTemporaryDatabasePath { path in
            do { _ = try SQLiteDatabase(path: path, migratingUpTo: Self.v1) }
            let store = try WorkshopStore(path: path)
            #expect(try store.sqlite.appliedMigrations() == WorkshopStoreTests.migrations)
            #expect(try store.sqlite.rowCount(in: "orders") == 0)
            #expect(try await store.stock(of: .fretboard(.blackLimba)) == 2)
        }
    }

    @Test func theOrdersTableStillRefusesATotalThatDoesNotAddUp() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let insert = { (total: Int) in
            """
            INSERT INTO orders (
                number, access_key, checkout_id, shipping, currency, rate, base_price_minor, additions_minor,
                discount_minor, discount_code, shipping_minor, total_minor, status, placed_at, session_key,
                stage_started_at
            ) VALUES (
                'LU-\(total)', 'key', 'checkout-\(total)', 'ground', 'USD', '1', 200000, 10000, 21000, 'WELCOME10',
                10000, \(total), 'woodSelection', 0, 'session', 0
            )
            """
        }
        // Without the discount taken off, the total is refused; with it, accepted.
        #expect(throws: (any Error).self) { try store.sqlite.execute(sql: insert(220_000)) }
        try store.sqlite.execute(sql: insert(199_000))
        #expect(try store.sqlite.rowCount(in: "orders") == 1)
    }

    @Test func aLineMustBelongToAnOrder() async throws {
        let store = try WorkshopStore(path: ":memory:")
        #expect(throws: (any Error).self) {
            try store.sqlite.execute(
                sql: """
                    INSERT INTO order_lines (order_number, position, shape, color, body, fretboard, quantity)
                    VALUES ('LU-NONE22', 0, 'casual', 'natural', 'mahogany', 'rosewood', 1)
                    """)
        }
    }
}
