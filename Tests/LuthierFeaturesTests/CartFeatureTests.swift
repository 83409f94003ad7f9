import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

/// The cart's reducer in its store: the shopping cart's `scan`, its code and the settling of an
/// order; what it refuses leaves the state as it was and says why.
@Suite struct CartFeatureTests {
    static let now = CartViewModelTests.now
    static let longV = Guitar(shape: .longV)

    static func store(_ state: CartState = CartState()) -> TestStore<CartFeature> {
        TestStore(initialState: state, reducer: CartFeature(discounts: CartViewModelTests.codes, now: { now }))
    }

    @Test("customer actions fold into the cart; an unknown line is refused and changes nothing")
    func actionsFoldAndRefusalsChangeNothing() throws {
        var store = Self.store()
        let line = CartLine.id(for: Self.longV)
        try store.send(.cart(.add(Self.longV))) { $0.cart = Cart(lines: [CartLine(guitar: Self.longV, quantity: 1)]) }
        try store.send(.cart(.increment(lineID: line))) {
            $0.cart = Cart(lines: [CartLine(guitar: Self.longV, quantity: 2)])
        }
        store.send(.cart(.remove(lineID: "no-such-line")), refusedWith: .cart(.unknownLine(id: "no-such-line")))
        try store.send(.cart(.clear)) { $0.cart = .empty }
    }

    @Test("a code is found whatever its case; an unknown or expired one is refused and the one there was kept")
    func discountCodes() throws {
        var store = Self.store()
        try store.send(.applyDiscount(code: "  band10 ")) { $0.discount = CartViewModelTests.codes[0] }
        store.send(.applyDiscount(code: "NOPE"), refusedWith: .discount(.unknown("NOPE")))
        store.send(.applyDiscount(code: "old20"), refusedWith: .discount(.expired("OLD20")))
        #expect(store.state.discount == CartViewModelTests.codes[0])
    }

    @Test("an order from a cart checkout takes its guitars and its code out once; a builder checkout leaves the cart")
    func settlingAnOrder() throws {
        let lines = [CartLine(guitar: Self.longV, quantity: 2)]
        var store = Self.store(CartState(cart: Cart(lines: lines), discount: CartViewModelTests.codes[0]))
        func checkout(_ id: String, _ source: Checkout.Source) -> Checkout {
            Checkout(
                id: id, source: source,
                lines: lines.map { CheckoutLine(guitar: $0.guitar, quantity: $0.quantity, availability: .available) },
                estimate: BuildEstimate(months: 3), shippingOptions: ShippingOption.standard,
                discount: CartViewModelTests.codes[0])
        }
        try store.send(.settle(checkout("b", .builder)))
        try store.send(.settle(checkout("c", .cart))) {
            $0.cart = .empty
            $0.discount = nil
            $0.settledCheckoutID = "c"
        }
        try store.send(.cart(.add(Self.longV))) { $0.cart = Cart(lines: [CartLine(guitar: Self.longV, quantity: 1)]) }
        // The same order settled again (the order route and the session's driver both settle it).
        try store.send(.settle(checkout("c", .cart)))
    }

    @Test("when the shop's codes change, an applied code takes its new terms, and leaves the cart once expired")
    func theShopsCodesChange() throws {
        let book = DiscountBook([DiscountCode(code: "LAUNCH", percent: 20)])
        var store = TestStore(
            initialState: CartState(), reducer: CartFeature(book: book, now: { Self.now }))
        try store.send(.applyDiscount(code: "launch")) { $0.discount = DiscountCode(code: "LAUNCH", percent: 20) }
        book.replace(with: [DiscountCode(code: "LAUNCH", percent: 25)])
        try store.send(.discountsChanged) { $0.discount = DiscountCode(code: "LAUNCH", percent: 25) }
        book.replace(with: [DiscountCode(code: "LAUNCH", percent: 25, expires: Self.now)])
        try store.send(.discountsChanged) { $0.discount = nil }
        // With no code applied, a change of the codes changes nothing.
        try store.send(.discountsChanged)
    }
}
