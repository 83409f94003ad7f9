import Clocks
import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

/// A session read back after a restart: the builder picks up its guitar and its checkout as saved.
@Suite struct BuildViewModelRestoreTests {
    static let longV = Guitar(shape: .longV)
    static let checkout = Checkout(
        id: "checkout-7", source: .cart,
        lines: [
            CheckoutLine(guitar: longV, quantity: 2, availability: .available),
            CheckoutLine(guitar: .standard, quantity: 1, availability: .available),
        ],
        estimate: BuildEstimate(months: 4), shippingOptions: ShippingOption.standard,
        discount: DiscountCode(code: "BAND10", percent: 10))
    static let euro = ExchangeRate(
        currency: .eur, perDollar: Decimal(string: "0.83") ?? 0, asOf: Date(timeIntervalSince1970: 1_800_000_000))

    /// The checkout with express shipping in euros, as chosen before the restart, and its order if placed.
    static func snapshot(ordered: Bool) -> CheckoutSnapshot {
        var state = CheckoutState(checkout: checkout)
        state.shipping = .express
        state.selectedCurrency = .eur
        state.shownRate = euro
        if ordered {
            let request = OrderRequest(
                checkoutID: checkout.id, lines: checkout.cartLines, shipping: state.shippingOption, rate: euro,
                discount: checkout.discount, sessionKey: "session")
            state.order = Order(
                number: "LU-7K3M9Q", accessKey: "access", checkoutID: checkout.id, lines: request.lines,
                shipping: request.shipping, currency: .eur, rate: euro.perDollar, discountCode: request.discountCode,
                quote: request.quote, status: .woodSelection, placedAt: Date(timeIntervalSince1970: 1_850_000_000),
                sessionKey: "session")
        }
        return CheckoutSnapshot(state: state)
    }

    @Test func exposesTheRestoredCheckoutWithItsChoicesAndOrder() async throws {
        let snapshot = Self.snapshot(ordered: true)
        // The workshop and the rates are not asked anything: the checkout is as it was.
        let model = BuildViewModel(
            state: BuildState(guitar: Guitar(color: .dusk)), environment: .test(), sessionKey: "session",
            restoredCheckout: snapshot)

        let checkout = try #require(model.currentCheckout)
        #expect(checkout.checkout == Self.checkout)
        #expect(model.currentOutput.checkoutID == "checkout-7")
        #expect(model.currentOutput.guitar == Guitar(color: .dusk))
        #expect(model.latestState.checkout == Self.checkout)
        #expect(model.latestState.checkout == Self.checkout)

        let state = checkout.latestState
        #expect(state.shipping == .express)
        #expect(state.selectedCurrency == .eur)
        #expect(state.shownRate == Self.euro)
        #expect(state.order == snapshot.order)
        #expect(CheckoutSnapshot(state: state) == snapshot)

        let output = checkout.currentOutput
        #expect(output.shippingOptions.filter(\.isSelected).map(\.value) == ["express"])
        #expect(output.currencies.filter(\.isSelected).map(\.code) == ["EUR"])
        #expect(!output.arePricesPending)
        #expect(output.confirmation?.number == "LU-7K3M9Q")
        #expect(output.confirmation?.guitarCount == 3)
        #expect(output.orderButtonLabel == "Ordered")
        #expect(output.isOrderDisabled)
        // Ordering again is the order already placed, without asking the workshop.
        #expect(try await checkout.placeOrder() == snapshot.order)
        // The choices stay as ordered.
        checkout.selectShipping(.pickup)
        #expect(checkout.latestState.shipping == .express)
        model.close()
    }

    @Test func aRestoredCheckoutNotYetOrderedCanBeOrderedAsChosen() async throws {
        let workshop = FakeWorkshop()
        let model = BuildViewModel(
            environment: .test(workshop: workshop.client), sessionKey: "session",
            restoredCheckout: Self.snapshot(ordered: false))
        let checkout = try #require(model.currentCheckout)
        #expect(checkout.currentOutput.orderButtonLabel == "Order now")

        let order = try await checkout.placeOrder()

        #expect(workshop.orderRequests.count == 1)
        let request = try #require(workshop.orderRequests.first)
        #expect(request.checkoutID == "checkout-7")
        #expect(request.lines == Self.checkout.cartLines)
        #expect(request.shipping == .express)
        #expect(request.rate == Self.euro)
        #expect(request.discountCode == "BAND10")
        #expect(order.currency == .eur)
        model.close()
    }

    @Test func aRestoredSessionIsIdleWhateverItWasDoing() {
        let model = BuildViewModel(
            state: BuildState(guitar: Self.longV, checkoutPhase: .loading), environment: .test(),
            sessionKey: "session", restoredCheckout: Self.snapshot(ordered: false))
        #expect(model.latestState.checkoutPhase == .idle)
        #expect(!model.currentOutput.checkoutButton.isLoading)
        #expect(model.currentOutput.checkoutButton.label == "Checkout ($2,075)")
    }

    @Test func withoutASavedCheckoutThereIsNone() {
        let model = BuildViewModel(
            state: BuildState(guitar: Self.longV, checkoutPhase: .failed("x"), checkout: Self.checkout),
            environment: .test(), sessionKey: "session", restoredCheckout: nil)
        #expect(model.currentCheckout == nil)
        #expect(model.latestState == BuildState(guitar: Self.longV))
        #expect(model.currentOutput.checkoutID == nil)
    }

    @Test func leavingTheRestoredCheckoutEndsIt() async throws {
        let model = BuildViewModel(
            environment: .test(), sessionKey: "session", restoredCheckout: Self.snapshot(ordered: true))
        let checkout = try #require(model.currentCheckout)
        var outputs = checkout.outputs().makeAsyncIterator()
        _ = await outputs.next()
        await model.send(.checkoutEnded)
        #expect(model.currentCheckout == nil)
        #expect(model.latestState.checkout == nil)
        #expect(await outputs.next() == nil)
    }
}
