import Foundation
import LuthierDomain
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// Orders of several lines: availability, estimates and stock are judged on the whole order.
@Suite struct WorkshopStoreOrderLinesTests {
    // The seeded stock has 3 Black Limba body blanks and 2 Black Limba fretboards.
    static let limbaBody = Guitar(body: .blackLimba, fretboard: .rosewood)
    static let limbaBodySky = Guitar(color: .sky, body: .blackLimba, fretboard: .ebony)
    static let allLimba = Guitar(body: .blackLimba, fretboard: .blackLimba)

    // MARK: - Availability

    @Test func linesSharingAScarceWoodAreJudgedTogether() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let first = CartLine(guitar: Self.limbaBody, quantity: 2)
        let second = CartLine(guitar: Self.limbaBodySky, quantity: 2)
        let plain = CartLine(guitar: .standard, quantity: 3)

        // Each line alone can be built: 2 of the 3 blanks.
        #expect(try await store.availability(for: [first]) == [.available])
        #expect(try await store.availability(for: [second]) == [.available])
        // Together they need 4 blanks: both lines are unavailable, the unrelated one is not,
        // and the answers come in line order.
        let missing = Availability.unavailable(missing: ["Black Limba body blanks"])
        #expect(try await store.availability(for: [first, plain, second]) == [missing, .available, missing])
        #expect(try await store.availability(for: [plain, second, first]) == [.available, missing, missing])
        // Exactly the stock is enough.
        let oneMore = CartLine(guitar: Self.limbaBodySky, quantity: 1)
        #expect(try await store.availability(for: [first, oneMore]) == [.available, .available])
    }

    @Test func aBodyAndAFretboardOfTheSameWoodAreDifferentStock() async throws {
        let store = try WorkshopStore(path: ":memory:")
        // 2 guitars need 2 of 3 blanks and 2 of 2 fretboards; a 3rd runs out of fretboards only.
        #expect(try await store.availability(for: [CartLine(guitar: Self.allLimba, quantity: 2)]) == [.available])
        #expect(
            try await store.availability(for: [CartLine(guitar: Self.allLimba, quantity: 3)])
                == [.unavailable(missing: ["Black Limba fretboards"])])
        // With a second line taking another blank, both woods fall short: body named first.
        let lines = [
            CartLine(guitar: Self.allLimba, quantity: 3), CartLine(guitar: Self.limbaBodySky, quantity: 1),
        ]
        #expect(
            try await store.availability(for: lines) == [
                .unavailable(missing: ["Black Limba body blanks", "Black Limba fretboards"]),
                .unavailable(missing: ["Black Limba body blanks"]),
            ])
    }

    @Test func anEmptyOrderHasNoAnswers() async throws {
        let store = try WorkshopStore(path: ":memory:")
        #expect(try await store.availability(for: []) == [])
    }

    // MARK: - Estimate

    @Test func theEstimateOfAnOrderIsTheLongestOfItsGuitars() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let plain = CartLine(guitar: .standard, quantity: 4)
        let scarce = CartLine(guitar: Self.limbaBody, quantity: 1)
        #expect(try await store.estimate(for: [plain]) == BuildEstimate(months: 2))
        #expect(try await store.estimate(for: [scarce]) == BuildEstimate(months: 3))
        #expect(try await store.estimate(for: [plain, scarce]) == BuildEstimate(months: 3))
        #expect(try await store.estimate(for: [scarce, plain, plain]) == BuildEstimate(months: 3))
        let standard = try await store.estimate(for: .standard)
        #expect(try await store.estimate(for: [plain]) == standard)
        // Nothing to build: the backlog alone.
        #expect(try await store.estimate(for: []) == BuildEstimate(months: 2))
        _ = try await store.placeOrder(OrderFixture.request(checkoutID: "backlog"))
        #expect(try await store.estimate(for: []) == BuildEstimate(months: 3))
        #expect(try await store.estimate(for: [plain, scarce]) == BuildEstimate(months: 4))
    }

    // MARK: - Placing

    @Test func anOrderOfSeveralLinesTakesEveryWoodItNeedsAndReadsBackEqual() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path, now: { OrderFixture.placedAt })
            let lines = [
                CartLine(guitar: Guitar(shape: .longV, color: .sky, body: .koa, fretboard: .ebony), quantity: 2),
                CartLine(guitar: Guitar(body: .koa), quantity: 1),
                CartLine(guitar: .standard, quantity: 3),
            ]
            let discount = DiscountCode(code: "WELCOME10", percent: 10)
            let request = OrderFixture.request(
                checkoutID: "cart", lines: lines, shipping: .express, currency: .eur, rate: "0.83",
                discount: discount)
            let placed = try await store.placeOrder(request)

            #expect(placed.lines == lines)
            #expect(placed.guitarCount == 6)
            #expect(placed.discountCode == "WELCOME10")
            #expect(placed.quote == request.quote)
            #expect(placed.quote.discount.minorUnits > 0)
            #expect(
                placed.quote.total
                    == placed.quote.basePrice + placed.quote.additions - placed.quote.discount + placed.quote.shipping)
            #expect(placed.currency == .eur)
            #expect(placed.rate.description == "0.83")

            // Stock: Koa 6 − 3, Ebony 8 − 2, Mahogany 40 − 3, Rosewood 50 − 4.
            #expect(try await store.stock(of: .body(.koa)) == 3)
            #expect(try await store.stock(of: .fretboard(.ebony)) == 6)
            #expect(try await store.stock(of: .body(.mahogany)) == 37)
            #expect(try await store.stock(of: .fretboard(.rosewood)) == 46)
            #expect(try await store.openOrderCount() == 1)
            #expect(try store.sqlite.rowCount(in: "order_lines") == 3)

            let reopened = try WorkshopStore(path: path)
            #expect(try await reopened.order(number: placed.number) == placed)
            #expect(try await reopened.order(checkoutID: "cart") == placed)
        }
    }

    @Test func twoLinesOfOneConfigurationAreStoredAsTheyCame() async throws {
        // The cart never makes them, but the store must not merge or lose either.
        let store = try WorkshopStore(path: ":memory:")
        let lines = [CartLine(guitar: .standard, quantity: 1), CartLine(guitar: .standard, quantity: 2)]
        let placed = try await store.placeOrder(OrderFixture.request(lines: lines))
        #expect(try await store.order(number: placed.number)?.lines == lines)
        #expect(try await store.stock(of: .body(.mahogany)) == 37)
    }

    @Test func anOrderShortOfWoodsNamesEachOnceAndWritesNothing() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            // Black Limba: 4 blanks wanted of 3, 3 fretboards of 2; Ebony and Mahogany are fine.
            let lines = [
                CartLine(guitar: Self.allLimba, quantity: 2),
                CartLine(guitar: Guitar(color: .dusk, body: .blackLimba, fretboard: .ebony), quantity: 2),
                CartLine(guitar: Guitar(color: .earth, fretboard: .blackLimba), quantity: 1),
            ]
            await #expect(
                throws: OrderError.unavailable(missing: ["Black Limba body blanks", "Black Limba fretboards"])
            ) {
                try await store.placeOrder(OrderFixture.request(checkoutID: "too-much", lines: lines))
            }
            #expect(try await store.order(checkoutID: "too-much") == nil)
            #expect(try store.sqlite.rowCount(in: "orders") == 0)
            #expect(try store.sqlite.rowCount(in: "order_lines") == 0)
            for wood in StockedWood.allCases {
                #expect(try await store.stock(of: wood) == WorkshopStore.initialStock[wood])
            }
            // Without the line that tipped it over, the same checkout goes through.
            let order = try await store.placeOrder(OrderFixture.request(checkoutID: "too-much", lines: [lines[0]]))
            #expect(order.lines == [lines[0]])
            #expect(try await store.stock(of: .body(.blackLimba)) == 1)
            #expect(try await store.stock(of: .fretboard(.blackLimba)) == 0)
        }
    }

    @Test func anOrderWithoutLinesIsRefused() async throws {
        let store = try WorkshopStore(path: ":memory:")
        await #expect(throws: WorkshopStoreError.emptyOrder) {
            try await store.placeOrder(OrderFixture.request(lines: []))
        }
        #expect(try store.sqlite.rowCount(in: "orders") == 0)
    }

    @Test func aLinePastTheCartsMaximumIsRefusedByTheSchemaAndWritesNothing() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let lines = [CartLine(guitar: .standard, quantity: Cart.maximumQuantity + 1)]
        await #expect(throws: (any Error).self) { try await store.placeOrder(OrderFixture.request(lines: lines)) }
        #expect(try store.sqlite.rowCount(in: "orders") == 0)
        #expect(try await store.stock(of: .body(.mahogany)) == 40)
    }

    @Test func aRepeatedCartCheckoutReturnsTheFirstOrderUnchanged() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let lines = [CartLine(guitar: Self.limbaBody, quantity: 3)]
        let first = try await store.placeOrder(OrderFixture.request(checkoutID: "again", lines: lines))
        // The blanks are gone now; the repeat is still the order, not a refusal.
        #expect(try await store.placeOrder(OrderFixture.request(checkoutID: "again", lines: lines)) == first)
        #expect(try store.sqlite.rowCount(in: "order_lines") == 1)
    }
}
