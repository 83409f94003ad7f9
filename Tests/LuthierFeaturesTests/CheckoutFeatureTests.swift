import Clocks
import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

/// The checkout's reducer in its store, on a test clock: each test sends inputs and receives the
/// actions its effects send back, in order, with the state after each. No polling: a `receive`
/// waits for the action itself, and `finish` fails on any action nobody expected.
@Suite struct CheckoutFeatureTests {
    static let checkout = CheckoutViewModelTests.checkout

    struct Harness {
        let clock = ManualClock()
        let rates = FakeExchangeRates()
        let workshop = FakeWorkshop()

        func store(
            _ state: CheckoutState = CheckoutState(checkout: CheckoutFeatureTests.checkout),
            rates: ExchangeRateClient? = nil
        ) -> TestStore<CheckoutFeature> {
            TestStore(
                initialState: state,
                reducer: CheckoutFeature(
                    environment: .test(
                        clock: clock, workshop: workshop.client, exchangeRates: rates ?? self.rates.client),
                    sessionKey: "session"))
        }
    }

    static func rate(_ currency: Currency) -> ExchangeRate {
        ExchangeRate(
            currency: currency, perDollar: ExchangeRate.embeddedPerDollar[currency] ?? 1,
            asOf: FakeExchangeRates.asOf)
    }

    @Test("three quick currency clicks: debounce → removeDuplicates → flatMapLatest, one rate fetched")
    func threeQuickClicksFetchOneRate() async {
        let harness = Harness()
        var store = harness.store()
        store.send(.currencyChosen(.gbp)) { $0.selectedCurrency = .gbp }
        store.send(.currencyChosen(.ils)) { $0.selectedCurrency = .ils }
        store.send(.currencyChosen(.eur)) { $0.selectedCurrency = .eur }

        // 499 ms after the last click nothing has settled: had anything come back, `finish` or the
        // next `receive` would fail on it.
        await harness.clock.advance(by: .milliseconds(499))
        await harness.clock.advance(by: .milliseconds(1))
        await store.receive(.currencySettled(.eur)) { $0.isLoadingRate = true }
        await store.receive(.rateArrived(Self.rate(.eur))) {
            $0.isLoadingRate = false
            $0.shownRate = Self.rate(.eur)
        }
        #expect(harness.rates.fetches == [.eur])
        await store.finish()
    }

    @Test("a currency settled on what is already shown is dropped: nothing fetched")
    func theShownCurrencyIsNotFetched() async {
        let harness = Harness()
        var store = harness.store()
        store.send(.currencyChosen(.eur)) { $0.selectedCurrency = .eur }
        store.send(.currencyChosen(.usd)) { $0.selectedCurrency = .usd }
        await harness.clock.advance(by: CheckoutFeature.currencyDebounce)
        await store.receive(.currencySettled(.usd))
        #expect(harness.rates.fetches.isEmpty)
        await store.finish()
    }

    @Test("a failed rate goes back to the currency shown and says so; chosen again, it is fetched again")
    func aFailedRateIsToldAndCanBeRetried() async {
        let harness = Harness()
        harness.rates.fail(.gbp)
        var store = harness.store()
        store.send(.currencyChosen(.gbp)) { $0.selectedCurrency = .gbp }
        await harness.clock.advance(by: CheckoutFeature.currencyDebounce)
        await store.receive(.currencySettled(.gbp)) { $0.isLoadingRate = true }
        await store.receive(.rateFailed(.gbp)) {
            $0.isLoadingRate = false
            $0.selectedCurrency = .usd
            $0.notice = .rateUnavailable(.gbp, showing: .usd)
        }
        store.send(.currencyChosen(.gbp)) {
            $0.selectedCurrency = .gbp
            $0.notice = nil
        }
        await harness.clock.advance(by: CheckoutFeature.currencyDebounce)
        await store.receive(.currencySettled(.gbp)) { $0.isLoadingRate = true }
        await store.receive(.rateFailed(.gbp)) {
            $0.isLoadingRate = false
            $0.selectedCurrency = .usd
            $0.notice = .rateUnavailable(.gbp, showing: .usd)
        }
        #expect(harness.rates.fetches == [.gbp, .gbp])
        await store.finish()
    }

    @Test("a rate request still in flight is replaced by a newer one (flatMapLatest): its answer never lands")
    func aNewerRateRequestReplacesTheOneInFlight() async {
        let harness = Harness()
        // Pounds answer only when the test says so (or never, once their request is cancelled).
        let (poundsGate, openPounds) = AsyncStream<Void>.makeStream()
        let rates = ExchangeRateClient { currency in
            if currency == .gbp {
                for await _ in poundsGate { break }
                try Task.checkCancellation()
            }
            return Self.rate(currency)
        }
        var state = CheckoutState(checkout: Self.checkout)
        state.selectedCurrency = .gbp
        var store = harness.store(state, rates: rates)
        let pounds = store.send(.currencySettled(.gbp)) { $0.isLoadingRate = true }
        store.send(.currencyChosen(.eur)) { $0.selectedCurrency = .eur }
        await harness.clock.advance(by: CheckoutFeature.currencyDebounce)
        await store.receive(.currencySettled(.eur))
        await store.receive(.rateArrived(Self.rate(.eur))) {
            $0.isLoadingRate = false
            $0.shownRate = Self.rate(.eur)
        }
        // Let the pounds answer now, and wait until their request has ended: had it not been
        // cancelled, its rate would have come back, and `finish` fails on any action not received.
        openPounds.yield()
        openPounds.finish()
        await pounds.finish()
        await store.finish()
    }

    @Test("shipping changes at once and fetches nothing")
    func shipping() async {
        var store = Harness().store()
        store.send(.shippingChosen(.express)) { $0.shipping = .express }
        await store.finish()
    }

    @Test("an order is one request whose answer comes back as an action; a second tap meanwhile asks nothing")
    func orderingIsOneRequest() async {
        let harness = Harness()
        harness.workshop.closeGate()
        var store = harness.store()
        let tapped = store.send(.orderTapped) { $0.isOrdering = true }
        store.send(.orderTapped)
        harness.workshop.openGate()
        await tapped.finish()
        let request = OrderRequest(
            checkoutID: Self.checkout.id, lines: Self.checkout.cartLines,
            shipping: CheckoutState(checkout: Self.checkout).shippingOption, rate: .dollar(), discount: nil,
            sessionKey: "session")
        await store.receive(.orderPlaced(FakeWorkshop.order(for: request))) {
            $0.isOrdering = false
            $0.order = FakeWorkshop.order(for: request)
        }
        #expect(harness.workshop.counts.placeOrder == 1)
        // Placed: the inputs no longer change it.
        store.send(.orderTapped)
        store.send(.shippingChosen(.express))
        store.send(.currencyChosen(.eur))
        await store.finish()
    }

    /// Taps "Order now" and receives `failure`: the tap shows the order going, the failure ends it
    /// and is told; `also` says what else the failure changes.
    static func tapOrder(
        _ store: inout TestStore<CheckoutFeature>, failingWith failure: CheckoutFeature.OrderFailure,
        also: (inout CheckoutState) -> Void = { _ in }
    ) async {
        store.send(.orderTapped) { $0.isOrdering = true }
        await store.receive(.orderFailed(failure)) {
            $0.isOrdering = false
            $0.notice = .orderFailed(failure)
            also(&$0)
        }
    }

    @Test("wood that ran out refuses the order, marks the checkout unavailable and says which")
    func aRefusedOrder() async {
        let harness = Harness()
        harness.workshop.refuseOrders(with: .unavailable(missing: ["Ebony fretboards"]))
        var store = harness.store()
        let refusal = OrderError.unavailable(missing: ["Ebony fretboards"])
        await Self.tapOrder(&store, failingWith: .refused(refusal.message, missing: ["Ebony fretboards"])) {
            $0.availability = .unavailable(missing: ["Ebony fretboards"])
        }
        // Now unavailable: tapping again asks nothing.
        store.send(.orderTapped)
        await store.finish()
    }

    @Test("a workshop that cannot take orders is told as 'try again', the checkout left orderable")
    func aFailingWorkshop() async {
        let harness = Harness()
        harness.workshop.failOrders()
        var store = harness.store()
        await Self.tapOrder(&store, failingWith: .unavailable(CheckoutFeature.unavailableMessage))
        #expect(store.state.isOrderable)
        await store.finish()
    }

    @Test("prices still loading cannot be ordered; the reducer asks nothing")
    func pricesLoadingCannotBeOrdered() async {
        var store = Harness().store()
        store.send(.currencyChosen(.eur)) { $0.selectedCurrency = .eur }
        #expect(store.state.whyNotOrderable == "Prices are still loading; order once they are shown.")
        store.send(.orderTapped)
        await store.finish()
    }

    @Test(
        "a stock change asks availability again: a restocked wood makes the checkout orderable, the stale refusal goes")
    func aRestockMakesTheCheckoutOrderableAgain() async {
        let harness = Harness()
        harness.workshop.refuseOrders(with: .unavailable(missing: ["Ebony fretboards"]))
        var store = harness.store()
        let refusal = OrderError.unavailable(missing: ["Ebony fretboards"])
        await Self.tapOrder(&store, failingWith: .refused(refusal.message, missing: ["Ebony fretboards"])) {
            $0.availability = .unavailable(missing: ["Ebony fretboards"])
        }
        let asked = harness.workshop.counts.availability
        store.send(.stockChanged)
        await store.receive(.availabilityChecked([.available])) {
            $0.availability = .available
            $0.notice = nil
        }
        #expect(harness.workshop.counts.availability == asked + 1)
        #expect(store.state.isOrderable)
        await store.finish()
    }

    @Test("a stock change that takes a wood away marks the line unavailable, naming it")
    func aCorrectionMakesALineUnavailable() async {
        let harness = Harness()
        harness.workshop.set(availability: .unavailable(missing: ["Koa body blanks"]))
        var store = harness.store()
        store.send(.stockChanged)
        await store.receive(.availabilityChecked([.unavailable(missing: ["Koa body blanks"])])) {
            $0.checkout.lines[0].availability = .unavailable(missing: ["Koa body blanks"])
            $0.availability = .unavailable(missing: ["Koa body blanks"])
        }
        #expect(store.state.whyNotOrderable == "This model is currently unavailable.")
        await store.finish()
    }

    @Test("an ordered checkout asks nothing when the stock changes")
    func anOrderedCheckoutIgnoresStock() async {
        let harness = Harness()
        var state = CheckoutState(checkout: Self.checkout)
        state.order = WorkshopFloorFixture.order(1)
        var store = harness.store(state)
        store.send(.stockChanged)
        #expect(harness.workshop.counts.availability == 0)
        await store.finish()
    }
}
