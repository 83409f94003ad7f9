import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierFeatures

@Suite struct CartViewModelTests {
    static let now = Date(timeIntervalSince1970: 1_900_000_000)
    static let codes = [
        DiscountCode(code: "BAND10", percent: 10, expires: now.addingTimeInterval(3_600)),
        DiscountCode(code: "OLD20", percent: 20, expires: now.addingTimeInterval(-1)),
    ]

    static func model() -> CartViewModel {
        CartViewModel(discounts: DiscountBook(codes), now: { now })
    }

    @Test func actionsInComeOutAsLinesTotalsAndTheBadgeCount() async throws {
        let model = Self.model()
        var outputs = model.outputs().makeAsyncIterator()
        #expect(await outputs.next()?.isEmpty == true)

        try await model.send(.add(Guitar(shape: .longV)))
        try await model.send(.add(Guitar(shape: .longV)))
        try await model.send(.add(.standard))
        let output = model.currentOutput
        #expect(output.guitarCount == 3)
        #expect(output.lines.map(\.quantity) == [2, 1])
        #expect(output.lines.map(\.total) == ["$4,150", "$2,000"])
        #expect(output.lines.first?.unitPrice == "$2,075")
        #expect(output.total == "$6,150")
        #expect(output.discountedTotal == nil)
        // A reader that fell behind gets the newest cart, once.
        #expect(await outputs.next()?.guitarCount == 3)
    }

    @Test func aRefusedActionChangesNothingAndEmitsNothing() async throws {
        let model = Self.model()
        try await model.send(.add(.standard))
        let before = model.currentOutput
        await #expect(throws: CartError.unknownLine(id: "nope")) { try await model.send(.remove(lineID: "nope")) }
        #expect(model.currentOutput == before)
        #expect(model.latestState.cart.guitarCount == 1)
    }

    @Test func aValidCodeShowsTheDiscountedTotalAndOthersSayWhyNot() async throws {
        let model = Self.model()
        try await model.send(.add(Guitar(shape: .longV)))
        try await model.send(.add(Guitar(shape: .longV)))

        await #expect(throws: CartViewModel.DiscountFailure.unknown("NOPE")) {
            try await model.applyDiscount(code: "NOPE")
        }
        await #expect(throws: CartViewModel.DiscountFailure.expired("OLD20")) {
            try await model.applyDiscount(code: "old20")
        }
        #expect(model.currentOutput.discountedTotal == nil)

        try await model.applyDiscount(code: " band10 ")
        #expect(model.currentOutput.discountCode == "BAND10")
        #expect(model.currentOutput.discountedTotal == "$3,735")
        #expect(CartViewModel.DiscountFailure.expired("OLD20").message == "The code 'OLD20' has expired.")
    }

    /// What a cart tells its analytics subscriber.
    final class AppliedLog: Sendable {
        private let applied = Mutex<[CartViewModel.AppliedAction]>([])
        var actions: [CartViewModel.AppliedAction] { applied.withLock { $0 } }
        func append(_ action: CartViewModel.AppliedAction) { applied.withLock { $0.append(action) } }
    }

    @Test func theAnalyticsSubscriberIsToldOfEveryAppliedActionInOrderAsItIsApplied() async throws {
        let log = AppliedLog()
        let model = CartViewModel(discounts: DiscountBook(Self.codes), now: { Self.now }, applied: log.append)
        for _ in 0..<1_200 {
            try await model.send(.add(.standard))
            try await model.send(.decrement(lineID: CartLine.id(for: .standard)))
        }
        try await model.send(.add(Guitar(color: .sky)))
        let seen = log.actions
        #expect(seen.count == 2_401)
        #expect(seen.last?.action == .add(Guitar(color: .sky)))
        #expect(seen.last?.cart.guitarCount == 1)
        #expect(seen.last?.at == Self.now)
        #expect(model.latestState.cart.guitarCount == 1)
    }

    @Test func eachActionIsToldOnceAppliedAndARefusedOneIsNot() async throws {
        let log = AppliedLog()
        let model = CartViewModel(discounts: DiscountBook(Self.codes), now: { Self.now }, applied: log.append)
        let longV = CartLine.id(for: Guitar(shape: .longV))
        let actions: [CartAction] = [
            .add(Guitar(shape: .longV)), .increment(lineID: longV), .decrement(lineID: longV), .clear,
        ]
        for (index, action) in actions.enumerated() {
            try await model.send(action)
            #expect(log.actions.count == index + 1)
            #expect(log.actions.last?.action == action)
        }
        await #expect(throws: CartError.self) { try await model.send(.increment(lineID: longV)) }
        #expect(log.actions.count == actions.count)
    }

    // MARK: - Restored from a session

    static let longV = Guitar(shape: .longV)
    static let sky = Guitar(color: .sky)
    static let saved = Cart(lines: [CartLine(guitar: longV, quantity: 2), CartLine(guitar: sky, quantity: 1)])

    @Test func restoredWithACartAndAValidCodeShowsBoth() async {
        let model = CartViewModel(
            cart: Self.saved, discount: Self.codes[0], discounts: DiscountBook(Self.codes), now: { Self.now })
        #expect(model.latestState.cart == Self.saved)
        let output = model.currentOutput
        #expect(output.guitarCount == 3)
        #expect(output.total == "$6,300")
        #expect(output.discountCode == "BAND10")
        #expect(output.discountedTotal == "$5,670")
        #expect(model.validDiscount == Self.codes[0])
        #expect(
            model.latestState == CartViewModel.Latest(cart: Self.saved, discount: Self.codes[0], settledCheckoutID: nil)
        )
    }

    @Test func restoredWithAnExpiredCodeDropsIt() async {
        let model = CartViewModel(
            cart: Self.saved, discount: Self.codes[1], discounts: DiscountBook(Self.codes), now: { Self.now })
        #expect(model.currentOutput.discountCode == nil)
        #expect(model.currentOutput.discountedTotal == nil)
        #expect(model.currentOutput.total == "$6,300")
        #expect(model.validDiscount == nil)
        #expect(model.latestState.discount == nil)
        #expect(model.latestState.cart == Self.saved)
    }

    @Test func aCodeThatExpiresWhileTheCartIsOpenIsNoLongerCheckedOutWith() async throws {
        let clock = Mutex(Self.now)
        let model = CartViewModel(cart: Self.saved, discounts: DiscountBook(Self.codes), now: { clock.withLock { $0 } })
        try await model.applyDiscount(code: "BAND10")
        #expect(model.validDiscount == Self.codes[0])

        clock.withLock { $0 = Self.now.addingTimeInterval(3_600) }  // BAND10's expiry
        #expect(model.validDiscount == nil)
        // The next output says so too.
        try await model.send(.add(.standard))
        #expect(model.currentOutput.discountCode == nil)
        #expect(model.currentOutput.discountedTotal == nil)
    }

    @Test func theLatestStateFollowsEveryAppliedInputAndIgnoresRefusedOnes() async throws {
        let model = Self.model()
        #expect(model.latestState == CartViewModel.Latest(cart: .empty, discount: nil, settledCheckoutID: nil))
        try await model.send(.add(Self.longV))
        try await model.send(.add(Self.longV))
        try await model.applyDiscount(code: "band10")
        let expected = CartViewModel.Latest(
            cart: Cart(lines: [CartLine(guitar: Self.longV, quantity: 2)]), discount: Self.codes[0],
            settledCheckoutID: nil)
        #expect(model.latestState == expected)
        await #expect(throws: CartError.self) { try await model.send(.remove(lineID: "nope")) }
        await #expect(throws: CartViewModel.DiscountFailure.self) { try await model.applyDiscount(code: "OLD20") }
        #expect(model.latestState == expected)
        #expect(model.latestState.cart == (model.latestState.cart))
    }

    @Test func removingAnOrderTakesOutWhatWasOrderedAndIsNotAnAnalyticsAction() async throws {
        let log = AppliedLog()
        let model = CartViewModel(
            cart: Self.saved, discounts: DiscountBook(Self.codes), now: { Self.now }, applied: log.append)
        try await model.send(.add(Self.longV))  // added in another tab while checking out

        model.settle(
            Checkout(
                id: "ordered", source: .cart,
                lines: Self.saved.lines.map {
                    CheckoutLine(guitar: $0.guitar, quantity: $0.quantity, availability: .available)
                },
                estimate: BuildEstimate(months: 3), shippingOptions: ShippingOption.standard))

        let left = Cart(lines: [CartLine(guitar: Self.longV, quantity: 1)])
        #expect(model.latestState.cart == left)
        #expect(model.latestState.cart == left)
        #expect(model.currentOutput.guitarCount == 1)
        #expect(model.currentOutput.lines.map(\.id) == [CartLine.id(for: Self.longV)])
        #expect(log.actions.map(\.action) == [.add(Self.longV)])
    }

    // MARK: - Settling a placed order

    static func checkout(id: String, source: Checkout.Source, lines: [CartLine], discount: DiscountCode?) -> Checkout {
        Checkout(
            id: id, source: source,
            lines: lines.map { CheckoutLine(guitar: $0.guitar, quantity: $0.quantity, availability: .available) },
            estimate: BuildEstimate(months: 3), shippingOptions: ShippingOption.standard, discount: discount)
    }

    @Test func settlingACartOrderEmptiesTheCartAndUsesUpItsCodeOnce() async throws {
        let model = CartViewModel(
            cart: Self.saved, discount: Self.codes[0], discounts: DiscountBook(Self.codes), now: { Self.now })
        let checkout = Self.checkout(id: "c1", source: .cart, lines: Self.saved.lines, discount: Self.codes[0])

        model.settle(checkout)
        #expect(model.latestState.cart == .empty)
        #expect(model.validDiscount == nil)
        #expect(model.latestState == CartViewModel.Latest(cart: .empty, discount: nil, settledCheckoutID: "c1"))

        // Settled again (the order route, the session driver, a restart): nothing more is taken.
        try await model.send(.add(Self.sky))
        model.settle(checkout)
        #expect(model.latestState.cart == Cart(lines: [CartLine(guitar: Self.sky, quantity: 1)]))

        // A restored session remembers which checkout it settled.
        let restored = CartViewModel(
            cart: model.latestState.cart, discounts: DiscountBook(Self.codes),
            settledCheckoutID: model.latestState.settledCheckoutID,
            now: { Self.now })
        restored.settle(checkout)
        #expect(restored.latestState.cart == Cart(lines: [CartLine(guitar: Self.sky, quantity: 1)]))
    }

    @Test func aBuilderOrderLeavesTheCartAlone() async {
        let model = CartViewModel(
            cart: Self.saved, discount: Self.codes[0], discounts: DiscountBook(Self.codes), now: { Self.now })
        model.settle(
            Self.checkout(id: "b1", source: .builder, lines: [CartLine(guitar: Self.longV, quantity: 1)], discount: nil)
        )
        #expect(model.latestState.cart == Self.saved)
        #expect(model.latestState.settledCheckoutID == nil)
        #expect(model.validDiscount == Self.codes[0])
    }

    @Test func aCodeAppliedAfterTheCheckoutBeganIsKept() async throws {
        let model = CartViewModel(cart: Self.saved, discounts: DiscountBook(Self.codes), now: { Self.now })
        let checkout = Self.checkout(id: "c1", source: .cart, lines: Self.saved.lines, discount: nil)
        try await model.applyDiscount(code: "BAND10")
        model.settle(checkout)
        #expect(model.latestState.cart == .empty)
        #expect(model.validDiscount == Self.codes[0])
    }

    @Test func aCodeTheShopAddsOrExpiresCountsFromTheNextMomentInEveryCart() async throws {
        let book = DiscountBook([])
        let model = CartViewModel(cart: Self.saved, discounts: book, now: { Self.now })
        await #expect(throws: CartViewModel.DiscountFailure.unknown("launch")) {
            try await model.applyDiscount(code: "launch")
        }
        let launch = DiscountCode(code: "LAUNCH", percent: 20)
        book.replace(with: [launch])
        try await model.applyDiscount(code: "launch")
        #expect(model.validDiscount == launch)
        // Expired by the admin after this cart applied it: it no longer applies, here or at checkout.
        book.replace(with: [DiscountCode(code: "LAUNCH", percent: 20, expires: Self.now)])
        #expect(model.validDiscount == nil)
    }
}
