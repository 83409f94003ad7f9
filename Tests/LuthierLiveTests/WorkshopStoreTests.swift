import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive
@testable import SQLMachinery

@Suite struct WorkshopStoreTests {
    /// Every table a fully migrated database has.
    static let tables: Set<String> = [
        "wood_stock", "orders", "order_lines", "sessions", "analytics_events", "stock_adjustments", "order_stages",
        "discount_codes", "journal_stories", "readiness_probe", "floor_term",
    ]
    static let migrations = [
        "v1-wood-stock-and-orders", "v2-order-lines-discounts-sessions-analytics", "v3-order-stages",
        "v4-session-leftovers", "v5-stock-adjustments-stage-history-discount-codes", "v6-journal",
        "v7-readiness-probe", "v8-floor-term",
    ]

    // MARK: - Opening and migrations

    @Test func migratingAnEmptyFileCreatesTheTablesAndSeedsTheStock() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            #expect(FileManager.default.fileExists(atPath: path))
            #expect(try store.sqlite.tableNames() == Self.tables)
            #expect(try store.sqlite.appliedMigrations() == Self.migrations)
            for wood in StockedWood.allCases {
                #expect(try await store.stock(of: wood) == WorkshopStore.initialStock[wood])
            }
            #expect(try await store.openOrderCount() == 0)
        }
    }

    @Test func theSeededStockIsTheDocumentedOneWithScarceWoods() async {
        #expect(WorkshopStore.initialStock.count == StockedWood.allCases.count)
        #expect(WorkshopStore.initialStock[.body(.blackLimba)] == 3)
        #expect(WorkshopStore.initialStock[.fretboard(.blackLimba)] == 2)
        #expect(WorkshopStore.initialStock[.body(.mahogany)] == 40)
        #expect(WorkshopStore.initialStock[.fretboard(.rosewood)] == 50)
    }

    @Test func reopeningTheSameFileKeepsItsDataAndDoesNotReseed() async throws {
        try await withTemporaryDatabasePath { path in
            let number: String
            do {
                let store = try WorkshopStore(path: path)
                try await store.setStock(of: .body(.koa), to: 1)
                number = try await store.placeOrder(OrderFixture.request()).number
            }
            let reopened = try WorkshopStore(path: path)
            #expect(try reopened.sqlite.appliedMigrations() == Self.migrations)
            #expect(try await reopened.stock(of: .body(.koa)) == 1)
            #expect(try await reopened.stock(of: .body(.mahogany)) == 39)
            #expect(try await reopened.order(number: number)?.checkoutID == "checkout-1")
            // And a third opening while the second is still open (two pools on one WAL file).
            let third = try WorkshopStore(path: path)
            #expect(try await third.stock(of: .body(.mahogany)) == 39)
        }
    }

    /// What the shop said yes to must survive a power cut, not only a crash of the process: the
    /// connection that writes syncs every commit (SQLite's `FULL`, 2), where GRDB's WAL default
    /// (`NORMAL`, 1) syncs only at checkpoints.
    @Test func everyCommitIsSyncedToDisk() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            let level = try store.sqlite.writer.writeWithoutTransaction {
                try Int.fetchOne($0, sql: "PRAGMA synchronous")
            }
            #expect(level == 2)
        }
    }

    @Test func anInMemoryStoreIsMigratedAndSeeded() async throws {
        let store = try WorkshopStore(path: ":memory:")
        #expect(try store.sqlite.tableNames() == Self.tables)
        #expect(try await store.stock(of: .fretboard(.ebony)) == 8)
    }

    @Test func aPathThatCannotBeOpenedThrowsAClearError() async throws {
        let path = "/nonexistent-luthier-directory/sub/luthier.sqlite"
        let error = #expect(throws: WorkshopStoreError.self) { try WorkshopStore(path: path) }
        guard case .cannotOpen(let reportedPath, let reason) = error else {
            Issue.record("unexpected error \(String(describing: error))")
            return
        }
        #expect(reportedPath == path)
        #expect(!reason.isEmpty)
        #expect(error?.description.hasPrefix("Cannot open the workshop database at \(path): ") == true)
    }

    @Test func aFileThatIsNotADatabaseThrowsAClearError() async throws {
        try await withTemporaryDatabasePath { path in
            try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: WorkshopStoreError.self) { try WorkshopStore(path: path) }
            #expect(error?.description.contains(path) == true)
        }
    }

    @Test func aNegativeStockIsRefused() async throws {
        let store = try WorkshopStore(path: ":memory:")
        await #expect(throws: (any Error).self) { try await store.setStock(of: .body(.koa), to: -1) }
        #expect(try await store.stock(of: .body(.koa)) == 6)
    }

    // MARK: - Availability, estimate, shipping

    @Test func aGuitarIsAvailableWhileBothItsWoodsAreInStock() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let guitar = Guitar(body: .blackLimba, fretboard: .ebony)
        #expect(try await store.availability(for: guitar) == .available)

        try await store.setStock(of: .body(.blackLimba), to: 1)
        #expect(try await store.availability(for: guitar) == .available)

        try await store.setStock(of: .body(.blackLimba), to: 0)
        #expect(try await store.availability(for: guitar) == .unavailable(missing: ["Black Limba body blanks"]))
        #expect(try await store.availability(for: guitar).label == "Currently unavailable")

        try await store.setStock(of: .fretboard(.ebony), to: 0)
        #expect(
            try await store.availability(for: guitar)
                == .unavailable(missing: ["Black Limba body blanks", "Ebony fretboards"])
        )

        try await store.setStock(of: .body(.blackLimba), to: 2)
        #expect(try await store.availability(for: guitar) == .unavailable(missing: ["Ebony fretboards"]))
        // Other guitars are not affected.
        #expect(try await store.availability(for: .standard) == .available)
    }

    @Test func orderingTheLastPiecesMakesTheGuitarUnavailable() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let guitar = Guitar(body: .mahogany, fretboard: .blackLimba)
        _ = try await store.placeOrder(OrderFixture.request(checkoutID: "a", guitar: guitar))
        #expect(try await store.availability(for: guitar) == .available)
        _ = try await store.placeOrder(OrderFixture.request(checkoutID: "b", guitar: guitar))
        #expect(try await store.availability(for: guitar) == .unavailable(missing: ["Black Limba fretboards"]))
    }

    @Test func theStoreEstimateGrowsWithOpenOrders() async throws {
        let store = try WorkshopStore(path: ":memory:")
        #expect(try await store.estimate(for: .standard) == BuildEstimate(months: 2))
        #expect(try await store.estimate(for: .standard).label == "About 2 months")

        _ = try await store.placeOrder(OrderFixture.request(checkoutID: "first"))
        #expect(try await store.openOrderCount() == 1)
        #expect(try await store.estimate(for: .standard).months == 3)

        for index in 2...11 {
            _ = try await store.placeOrder(OrderFixture.request(checkoutID: "order-\(index)"))
        }
        #expect(try await store.openOrderCount() == 11)
        #expect(try await store.estimate(for: .standard).months == 4)
        // A scarce wood (3 Black Limba body blanks) adds a month.
        #expect(try await store.estimate(for: Guitar(body: .blackLimba)).months == 5)
    }

    @Test func shippingIsPickupGroundExpressAtListPrices() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let options = try await WorkshopClient.live(store: store, clock: ContinuousClock()).shippingOptions([
            CartLine(guitar: .standard, quantity: 2)
        ])
        #expect(options.map(\.method) == [.pickup, .ground, .express])
        #expect(options.map(\.price) == [.dollars(0), .dollars(100), .dollars(250)])
    }

    // MARK: - Placing orders

    @Test(arguments: [(Currency.ils, "3.25"), (.eur, "0.8312"), (.gbp, "0.71"), (.usd, "1")])
    func anOrderStoresEveryFieldExactly(currency: Currency, rate: String) async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path, now: { OrderFixture.placedAt })
            let guitar = Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony)
            let request = OrderFixture.request(
                checkoutID: "checkout-\(currency.code)", guitar: guitar, shipping: .express,
                currency: currency, rate: rate, sessionKey: "session-\(currency.code)"
            )
            let placed = try await store.placeOrder(request)

            #expect(placed.number.wholeMatch(of: /LU-[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}/) != nil)
            #expect(placed.accessKey.wholeMatch(of: /[0-9a-f]{32}/) != nil)
            #expect(placed.checkoutID == "checkout-\(currency.code)")
            #expect(placed.lines == [CartLine(guitar: guitar, quantity: 1)])
            #expect(placed.discountCode == nil)
            #expect(placed.shipping == .express)
            #expect(placed.currency == currency)
            #expect(placed.rate == Decimal(string: rate))
            #expect(placed.quote == request.quote)
            #expect(placed.status == .woodSelection)
            #expect(placed.placedAt == OrderFixture.placedAt)
            #expect(placed.sessionKey == "session-\(currency.code)")

            // Read back through a fresh connection to the file: exactly what was placed.
            let reopened = try WorkshopStore(path: path)
            let stored = try #require(try await reopened.order(number: placed.number))
            #expect(stored == placed)
            #expect(stored.rate.description == rate)
            #expect(try await reopened.order(checkoutID: request.checkoutID) == placed)
            #expect(try await reopened.stock(of: .body(.koa)) == 5)
            #expect(try await reopened.stock(of: .fretboard(.ebony)) == 7)
        }
    }

    @Test func amountsAreStoredInMinorUnitsOfTheOrderCurrency() async throws {
        let store = try WorkshopStore(path: ":memory:")
        // Express in ILS at 3.25: 25,000 ¢ × 3.25 = 81,250 agorot (₪812.50), no rounding lost.
        let order = try await store.placeOrder(
            OrderFixture.request(shipping: .express, currency: .ils, rate: "3.25")
        )
        #expect(order.quote.basePrice == Money(minorUnits: 650_000, currency: .ils))
        #expect(order.quote.additions == Money(minorUnits: 0, currency: .ils))
        #expect(order.quote.discount == Money(minorUnits: 0, currency: .ils))
        #expect(order.quote.shipping == Money(minorUnits: 81_250, currency: .ils))
        #expect(order.quote.total == Money(minorUnits: 731_250, currency: .ils))
        #expect(try await store.order(number: order.number)?.quote == order.quote)
    }

    @Test func unknownOrdersAreNil() async throws {
        let store = try WorkshopStore(path: ":memory:")
        #expect(try await store.order(number: "LU-AAAAAA") == nil)
        #expect(try await store.order(checkoutID: "nope") == nil)
        #expect(try await store.order(number: "' OR 1=1 --") == nil)
    }

    @Test func anOrderRefusedForMissingWoodWritesNothing() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            try await store.setStock(of: .fretboard(.ebony), to: 0)
            let guitar = Guitar(body: .swampAsh, fretboard: .ebony)

            await #expect(throws: OrderError.unavailable(missing: ["Ebony fretboards"])) {
                try await store.placeOrder(OrderFixture.request(guitar: guitar))
            }
            #expect(try await store.openOrderCount() == 0)
            #expect(try await store.order(checkoutID: "checkout-1") == nil)
            #expect(try await store.stock(of: .body(.swampAsh)) == 25)
            #expect(try await store.stock(of: .fretboard(.ebony)) == 0)
        }
    }

    @Test func orderingTheSameCheckoutTwiceMakesOneOrder() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let first = try await store.placeOrder(OrderFixture.request(checkoutID: "twice"))
        // Even a different request under the same checkout id returns the first order unchanged.
        let second = try await store.placeOrder(
            OrderFixture.request(checkoutID: "twice", guitar: Guitar(body: .koa), currency: .eur, rate: "0.83")
        )
        #expect(second == first)
        #expect(try await store.openOrderCount() == 1)
        #expect(try await store.stock(of: .body(.mahogany)) == 39)
        #expect(try await store.stock(of: .body(.koa)) == 6)
        #expect(try await store.stock(of: .fretboard(.rosewood)) == 49)
    }

    @Test func aRepeatedCheckoutIsReturnedEvenAfterItsWoodRanOut() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let guitar = Guitar(fretboard: .blackLimba)
        try await store.setStock(of: .fretboard(.blackLimba), to: 1)
        let first = try await store.placeOrder(OrderFixture.request(checkoutID: "last-piece", guitar: guitar))
        #expect(try await store.stock(of: .fretboard(.blackLimba)) == 0)
        #expect(try await store.placeOrder(OrderFixture.request(checkoutID: "last-piece", guitar: guitar)) == first)
    }

    @Test func fiftyConcurrentOrdersOfOneCheckoutMakeOneOrder() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            let request = OrderFixture.request(checkoutID: "hammered", guitar: Guitar(body: .koa, fretboard: .ebony))
            let numbers = await withTaskGroup(of: String?.self) { group in
                for _ in 0..<50 {
                    group.addTask { try? await store.placeOrder(request).number }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(numbers.count == 50)
            #expect(numbers.allSatisfy { $0 != nil })
            #expect(Set(numbers).count == 1)
            #expect(try await store.openOrderCount() == 1)
            #expect(try await store.stock(of: .body(.koa)) == 5)
            #expect(try await store.stock(of: .fretboard(.ebony)) == 7)
        }
    }

    @Test func fiftyConcurrentOrdersOfOneCheckoutThroughTwoConnectionsMakeOneOrder() async throws {
        // Two stores on one file behave like two server processes: the UNIQUE checkout id and
        // SQLite's write lock, not just one pool's serial writer, keep the order single.
        try await withTemporaryDatabasePath { path in
            let stores = [try WorkshopStore(path: path), try WorkshopStore(path: path)]
            let request = OrderFixture.request(checkoutID: "two-processes")
            let numbers = await withTaskGroup(of: String?.self) { group in
                for index in 0..<50 {
                    let store = stores[index % 2]
                    group.addTask { try? await store.placeOrder(request).number }
                }
                return await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(numbers.allSatisfy { $0 != nil })
            #expect(Set(numbers).count == 1)
            #expect(try await stores[0].openOrderCount() == 1)
            #expect(try await stores[1].stock(of: .body(.mahogany)) == 39)
        }
    }

    @Test func fiftyConcurrentCheckoutsForThreePiecesMakeThreeOrders() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            let guitar = Guitar(body: .blackLimba, fretboard: .rosewood)
            let bodyWood = StockedWood.body(.blackLimba)
            let fretboardWood = StockedWood.fretboard(.rosewood)
            let initialBodies = try await store.stock(of: bodyWood)
            let initialFretboards = try await store.stock(of: fretboardWood)
            #expect(initialBodies == 3)

            let results = await withTaskGroup(of: Result<Order, any Error>.self) { group in
                for index in 0..<50 {
                    let request = OrderFixture.request(checkoutID: "rush-\(index)", guitar: guitar)
                    group.addTask {
                        do { return .success(try await store.placeOrder(request)) } catch { return .failure(error) }
                    }
                }
                return await group.reduce(into: [Result<Order, any Error>]()) { $0.append($1) }
            }
            let orders = results.compactMap { try? $0.get() }
            let refusals = results.compactMap { result -> OrderError? in
                guard case .failure(let error) = result else { return nil }
                return error as? OrderError
            }
            #expect(orders.count == 3)
            #expect(Set(orders.map(\.number)).count == 3)
            #expect(refusals.count == 47)
            #expect(refusals.allSatisfy { $0 == .unavailable(missing: ["Black Limba body blanks"]) })
            #expect(try await store.openOrderCount() == 3)
            #expect(try await store.stock(of: bodyWood) == 0)
            #expect(try await store.stock(of: bodyWood) + orders.count == initialBodies)
            #expect(try await store.stock(of: fretboardWood) + orders.count == initialFretboards)
            for order in orders {
                #expect(try await store.order(number: order.number) == order)
            }
        }
    }

    // MARK: - Crashes

    @Test func anOrderTransactionThatFailsHalfWayLeavesNothing() async throws {
        struct FailureBeforeCommit: Error {}
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            await #expect(throws: FailureBeforeCommit.self) {
                // Both stock rows are decremented and the order row is inserted by now.
                try await store.placeOrder(OrderFixture.request(checkoutID: "doomed")) { throw FailureBeforeCommit() }
            }
            let reopened = try WorkshopStore(path: path)
            #expect(try await reopened.order(checkoutID: "doomed") == nil)
            #expect(try await reopened.openOrderCount() == 0)
            #expect(try await reopened.stock(of: .body(.mahogany)) == 40)
            #expect(try await reopened.stock(of: .fretboard(.rosewood)) == 50)
        }
    }
}
