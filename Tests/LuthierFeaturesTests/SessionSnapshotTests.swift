import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct SessionSnapshotTests {
    static let longV = Guitar(shape: .longV)
    static let koa = Guitar(color: .earth, body: .koa, fretboard: .birdseyeMaple)
    static let cart = Cart(lines: [CartLine(guitar: longV, quantity: 2), CartLine(guitar: koa, quantity: 1)])

    static func decimal(_ text: String) throws -> Decimal { try #require(Decimal(string: text)) }

    /// A cart checkout in `currency`, with express shipping and, if `ordered`, its placed order.
    static func checkout(rate text: String, currency: Currency, ordered: Bool, discount: DiscountCode?) throws
        -> CheckoutSnapshot
    {
        let rate = ExchangeRate(
            currency: currency, perDollar: try decimal(text), asOf: Date(timeIntervalSince1970: 1_899_999_000.375))
        let checkout = Checkout(
            id: "checkout-42", source: .cart,
            lines: [
                CheckoutLine(guitar: longV, quantity: 2, availability: .available),
                CheckoutLine(guitar: koa, quantity: 1, availability: .unavailable(missing: ["Koa body blanks"])),
            ],
            estimate: BuildEstimate(months: 6), shippingOptions: ShippingOption.standard, discount: discount)
        var state = CheckoutState(checkout: checkout)
        state.availability = .available
        state.shipping = .express
        state.selectedCurrency = currency
        state.shownRate = rate
        if ordered {
            let request = OrderRequest(
                checkoutID: checkout.id, lines: checkout.cartLines, shipping: state.shippingOption, rate: rate,
                discount: discount, sessionKey: "order-key")
            state.order = Order(
                number: "LU-7K3M9Q", accessKey: "0123456789abcdef0123456789abcdef", checkoutID: checkout.id,
                lines: request.lines, shipping: request.shipping, currency: currency, rate: rate.perDollar,
                discountCode: request.discountCode, quote: request.quote, status: .woodSelection,
                placedAt: Date(timeIntervalSince1970: 1_900_000_000.123_456), sessionKey: "order-key")
        }
        return CheckoutSnapshot(state: state)
    }

    static func roundTrip(_ snapshot: SessionSnapshot) throws -> SessionSnapshot {
        try JSONDecoder().decode(SessionSnapshot.self, from: try JSONEncoder().encode(snapshot))
    }

    @Test func aSessionWithACartACodeAndAnOrderedCheckoutInEurosComesBackEqual() throws {
        let discount = try DiscountCode(configuration: "SPRING15=15%@2027-06-01")
        let snapshot = SessionSnapshot(
            orderKey: "order-key", analyticsKey: "analytics-key", guitar: Guitar(shape: .sharpV, color: .dusk),
            cart: Self.cart, discount: discount,
            checkout: try Self.checkout(rate: "0.83", currency: .eur, ordered: true, discount: discount),
            settledCheckoutID: "checkout-41", revision: 7)

        let decoded = try Self.roundTrip(snapshot)

        #expect(decoded == snapshot)
        #expect(decoded.format == SessionSnapshot.currentFormat)
        #expect(decoded.revision == 7)
        #expect(decoded.cart == Self.cart)
        #expect(decoded.discount == discount)
        #expect(decoded.discount?.expires == discount.expires)
        #expect(decoded.settledCheckoutID == "checkout-41")
        let checkout = try #require(decoded.checkout)
        #expect(checkout.shownRate.perDollar == (try Self.decimal("0.83")))
        #expect(checkout.shownRate.asOf == Date(timeIntervalSince1970: 1_899_999_000.375))
        let order = try #require(checkout.order)
        #expect(order.rate == (try Self.decimal("0.83")))
        #expect(order.placedAt == snapshot.checkout?.order?.placedAt)
        #expect(order.quote == snapshot.checkout?.order?.quote)
        #expect(order.discountCode == "SPRING15")
        #expect(checkout.checkout.lines[1].availability == .unavailable(missing: ["Koa body blanks"]))
        #expect(checkout.checkout.discount == discount)
    }

    @Test(arguments: [("3.25", Currency.ils), ("0.83", .eur), ("0.71", .gbp), ("1", .usd), ("1.0837", .eur)])
    func everyRateComesBackExactly(rate: String, currency: Currency) throws {
        for ordered in [false, true] {
            let snapshot = SessionSnapshot(
                orderKey: "o", analyticsKey: "a",
                checkout: try Self.checkout(rate: rate, currency: currency, ordered: ordered, discount: nil))
            let decoded = try Self.roundTrip(snapshot)
            #expect(decoded == snapshot)
            #expect(decoded.checkout?.shownRate.perDollar == (try Self.decimal(rate)))
            if ordered { #expect(decoded.checkout?.order?.rate == (try Self.decimal(rate))) }
        }
    }

    /// The guide is saved with the session, so a refresh or a restart resumes at the same step;
    /// a snapshot stored before the guide existed reads as one without it.
    @Test func theGuideComesBackAtItsStepAndAnOlderSnapshotHasNone() throws {
        let snapshot = SessionSnapshot(
            orderKey: "o", analyticsKey: "a", guide: GuideState(step: .body, shape: .longV, color: .sky))
        #expect(snapshot.holdsSomething, "a guide begun is worth storing")
        #expect(try Self.roundTrip(snapshot).guide == GuideState(step: .body, shape: .longV, color: .sky))
        // As a store holds one saved before the guide: the same fields, no "guide" among them.
        let older = try JSONEncoder().encode(SessionSnapshot(orderKey: "o", analyticsKey: "a"))
        #expect(!String(decoding: older, as: UTF8.self).contains("guide"))
        let decoded = try JSONDecoder().decode(SessionSnapshot.self, from: older)
        #expect(decoded.guide == nil)
        #expect(!decoded.holdsSomething)
    }

    @Test func aNewSessionComesBackNew() throws {
        let snapshot = SessionSnapshot(orderKey: "o", analyticsKey: "a")
        #expect(snapshot.guitar == .standard)
        #expect(snapshot.cart == .empty)
        #expect(snapshot.discount == nil)
        #expect(snapshot.checkout == nil)
        #expect(snapshot.revision == 0)
        #expect(try Self.roundTrip(snapshot) == snapshot)
    }

    @Test func aCheckoutWhoseRateWasLoadingIsSavedWithItsChoiceAndRestoredIdle() throws {
        var state = CheckoutState(
            checkout: try Self.checkout(rate: "1", currency: .usd, ordered: false, discount: nil).checkout)
        state.selectedCurrency = .gbp
        state.isLoadingRate = true
        state.isOrdering = true
        state.notice = .rateUnavailable(.gbp, showing: .usd)
        let snapshot = CheckoutSnapshot(state: state)
        let decoded = try JSONDecoder().decode(CheckoutSnapshot.self, from: try JSONEncoder().encode(snapshot))
        #expect(decoded == snapshot)

        let restored = CheckoutState(snapshot: decoded)
        #expect(restored.selectedCurrency == .gbp)
        #expect(restored.shownRate == .dollar())
        #expect(!restored.isLoadingRate)
        #expect(!restored.isOrdering)
        #expect(restored.notice == nil)
        #expect(restored.arePricesPending)
    }
}
