import Clocks
import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct CheckoutViewModelTests {
    static let guitar = Guitar(shape: .longV, color: .sky)  // $2,225
    static let checkout = Checkout(
        id: "checkout-1", source: .builder,
        lines: [CheckoutLine(guitar: guitar, quantity: 1, availability: .available)],
        estimate: BuildEstimate(months: 3), shippingOptions: ShippingOption.standard
    )

    struct Harness {
        let clock = ManualClock()
        let rates = FakeExchangeRates()
        let workshop = FakeWorkshop()
        let model: CheckoutViewModel
        /// Every action the model's effects send back, in order.
        let feedback: AsyncStream<(CheckoutFeature.Action, CheckoutState)>
        let pipeline: Task<Void, Never>

        init(checkout: Checkout = CheckoutViewModelTests.checkout) {
            let (feedback, continuation) = AsyncStream<(CheckoutFeature.Action, CheckoutState)>.makeStream()
            self.feedback = feedback
            model = CheckoutViewModel(
                state: CheckoutState(checkout: checkout),
                environment: .test(clock: clock, workshop: workshop.client, exchangeRates: rates.client),
                sessionKey: "session", feedback: continuation
            )
            pipeline = Task { [model] in await model.run() }
        }

        /// A checkout read back from a saved session.
        init(restoring snapshot: CheckoutSnapshot) {
            let (feedback, continuation) = AsyncStream<(CheckoutFeature.Action, CheckoutState)>.makeStream()
            self.feedback = feedback
            model = CheckoutViewModel(
                restoring: snapshot,
                environment: .test(clock: clock, workshop: workshop.client, exchangeRates: rates.client),
                sessionKey: "session", feedback: continuation
            )
            pipeline = Task { [model] in await model.run() }
        }

        /// The next `count` actions the effects send back (waiting for them, bounded).
        func received(_ count: Int) async -> [CheckoutFeature.Action] {
            await firstValues(count, of: feedback).map(\.0)
        }

        /// The first output that satisfies `condition`, from the model's outputs (bounded).
        func output(where condition: @escaping @Sendable (CheckoutOutput) -> Bool) async -> CheckoutOutput? {
            await firstValues(1, of: model.outputs().filter(condition)).first
        }

        func finish() async {
            model.close()
            await pipeline.value
        }
    }

    static func rate(_ currency: Currency) -> ExchangeRate {
        CheckoutFeatureTests.rate(currency)
    }

    @Test func opensInDollarsWithEveryPriceShownAndNothingFetched() async {
        let harness = Harness()
        let output = harness.model.currentOutput
        #expect(output.basePrice == "$2,000")
        #expect(output.additions == "$225")
        #expect(output.shipping == "Free")
        #expect(output.grandTotal == "$2,225")
        #expect(output.shippingOptions.map(\.price) == ["Free", "$100", "$250"])
        #expect(output.shippingOptions.map(\.name) == ["Pickup", "Ground", "Express"])
        #expect(output.estimate == "About 3 months")
        #expect(output.availability == "Available")
        #expect(output.orderButtonLabel == "Order now")
        #expect(!output.isOrderDisabled)
        #expect(output.currencies.filter(\.isSelected).map(\.code) == ["USD"])
        #expect(harness.rates.fetches.isEmpty)
        #expect(harness.model.artworks == [GuitarArtwork(guitar: Self.guitar)])
        await harness.finish()
    }

    @Test func shippingChangesTheRowAndTheGrandTotalAtOnce() async {
        let harness = Harness()
        harness.model.selectShipping(.express)
        let output = harness.model.currentOutput
        #expect(output.shipping == "$250")
        #expect(output.grandTotal == "$2,475")
        #expect(output.deliveryTime == "1 week")
        #expect(output.shippingOptions.filter(\.isSelected).map(\.value) == ["express"])
        await harness.finish()
    }

    @Test func threeQuickCurrencyClicksFetchOneRateAfterTheDebounce() async {
        let harness = Harness()
        harness.model.selectCurrency(.gbp)
        harness.model.selectCurrency(.ils)
        harness.model.selectCurrency(.eur)

        // The picker shows the choice at once; the prices wait, as placeholders, and no order.
        var output = harness.model.currentOutput
        #expect(output.currencies.filter(\.isSelected).map(\.code) == ["EUR"])
        #expect(output.grandTotal == "…")
        #expect(output.shippingOptions.map(\.price) == ["Free", "…", "…"])
        #expect(output.isOrderDisabled)

        await harness.clock.advance(by: .milliseconds(499))
        #expect(harness.rates.fetches.isEmpty)
        await harness.clock.advance(by: .milliseconds(1))
        #expect(await harness.received(2) == [.currencySettled(.eur), .rateArrived(Self.rate(.eur))])

        output = harness.model.currentOutput
        #expect(output.basePrice == "€1,660")
        #expect(output.grandTotal == "€1,847")  // 2,225 × 0.83 = 1,846.75
        #expect(output.shippingOptions.map(\.price) == ["Free", "€83", "€208"])
        #expect(output.parts.map(\.pricedName) == ["Long V (+€62)", "Sky (+€124)", "Mahogany", "Rosewood"])
        #expect(output.ratesNote?.hasPrefix("EUR rates as of ") == true)
        #expect(!output.isOrderDisabled)
        #expect(harness.rates.fetches == [.eur])
        await harness.finish()
    }

    @Test func expressInShekelsRoundsHalfToEven() async {
        let harness = Harness()
        harness.model.selectShipping(.express)
        harness.model.selectCurrency(.ils)
        await harness.clock.advance(by: CheckoutViewModel.currencyDebounce)
        #expect(await harness.received(2) == [.currencySettled(.ils), .rateArrived(Self.rate(.ils))])
        #expect(harness.model.currentOutput.shipping == "₪812")
        await harness.finish()
    }

    @Test func choosingTheCurrencyAlreadyShownFetchesNothing() async {
        let harness = Harness()
        harness.model.selectCurrency(.eur)
        harness.model.selectCurrency(.usd)
        await harness.clock.advance(by: .seconds(1))
        // The last choice settles on what is shown: dropped, so no request follows it.
        #expect(await harness.received(1) == [.currencySettled(.usd)])
        #expect(!harness.model.currentOutput.arePricesPending)
        #expect(harness.rates.fetches.isEmpty)
        #expect(harness.model.currentOutput.grandTotal == "$2,225")
        await harness.finish()
    }

    @Test func aFailedRateNeverShowsDollarsUnderAnotherSymbolAndCanBeRetried() async {
        let harness = Harness()
        harness.rates.fail(.gbp)
        harness.model.selectCurrency(.gbp)
        #expect(harness.model.currentOutput.grandTotal == "…")
        await harness.clock.advance(by: CheckoutViewModel.currencyDebounce)
        #expect(await harness.received(2) == [.currencySettled(.gbp), .rateFailed(.gbp)])

        let output = harness.model.currentOutput
        #expect(output.currencies.filter(\.isSelected).map(\.code) == ["USD"])
        #expect(output.grandTotal == "$2,225")
        #expect(output.notice == "GBP prices are unavailable right now; showing prices in USD.")
        #expect(!output.isOrderDisabled)

        // Chosen again, it is fetched again (duplicates are dropped against what is shown).
        harness.model.selectCurrency(.gbp)
        await harness.clock.advance(by: CheckoutViewModel.currencyDebounce)
        #expect(await harness.received(2) == [.currencySettled(.gbp), .rateFailed(.gbp)])
        #expect(harness.rates.fetches == [.gbp, .gbp])
        await harness.finish()
    }

    @Test func orderingIsOnceHoweverOftenItIsAsked() async throws {
        let harness = Harness()
        harness.workshop.closeGate()
        let model = harness.model
        let orders = Task {
            try await withThrowingTaskGroup(of: Order.self) { group in
                for _ in 0..<50 { group.addTask { try await model.placeOrder() } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await harness.output { $0.orderButtonLabel == "Ordering…" } != nil)
        #expect(harness.model.currentOutput.isOrderDisabled)
        harness.workshop.openGate()

        let placed = try await orders.value
        #expect(placed.count == 50)
        #expect(Set(placed.map(\.number)) == ["LU-TEST01"])
        #expect(harness.workshop.counts.placeOrder == 1)
        let output = harness.model.currentOutput
        #expect(output.confirmation?.number == "LU-TEST01")
        #expect(output.confirmation?.link == "/orders/LU-TEST01?key=key")
        _ = try await harness.model.placeOrder()
        #expect(harness.workshop.counts.placeOrder == 1)
        await harness.finish()
    }

    @Test func theOrderCarriesTheShownCurrencyRateAndAmounts() async throws {
        let harness = Harness()
        harness.model.selectShipping(.ground)
        harness.model.selectCurrency(.ils)
        await harness.clock.advance(by: CheckoutViewModel.currencyDebounce)
        #expect(await harness.received(2) == [.currencySettled(.ils), .rateArrived(Self.rate(.ils))])
        let order = try await harness.model.placeOrder()
        #expect(order.currency == .ils)
        #expect(order.rate == Decimal(string: "3.25"))
        #expect(order.quote.total.minorUnits == 755_625)  // (2,225 + 100) × 3.25
        #expect(order.shipping == .ground)
        #expect(order.sessionKey == "session")
        await harness.finish()
    }

    @Test func anUnavailableModelCannotBeOrdered() async {
        let harness = Harness(
            checkout: Checkout(
                id: "c", source: .builder,
                lines: [
                    CheckoutLine(
                        guitar: Self.guitar, quantity: 1, availability: .unavailable(missing: ["Koa body blanks"]))
                ],
                estimate: BuildEstimate(months: 4), shippingOptions: ShippingOption.standard
            )
        )
        let output = harness.model.currentOutput
        #expect(output.orderButtonLabel == "Model unavailable")
        #expect(output.isOrderDisabled)
        #expect(output.availability == "Currently unavailable")
        await #expect(throws: CheckoutViewModel.OrderFailure.self) { try await harness.model.placeOrder() }
        #expect(harness.workshop.counts.placeOrder == 0)
        await harness.finish()
    }

    @Test func woodThatRanOutMeanwhileRefusesTheOrderAndSaysSo() async {
        let harness = Harness()
        harness.workshop.refuseOrders(with: .unavailable(missing: ["Ebony fretboards"]))
        await #expect(throws: CheckoutViewModel.OrderFailure.self) { try await harness.model.placeOrder() }
        let output = harness.model.currentOutput
        #expect(output.availability == "Currently unavailable")
        #expect(output.orderButtonLabel == "Model unavailable")
        #expect(output.notice?.contains("Ebony fretboards") == true)
        #expect(output.confirmation == nil)
        await harness.finish()
    }

    /// A store that fails (locked, full) is not a refusal: every caller, the one that placed the
    /// order and the ones that joined it while it was in flight, is told to try again, and trying
    /// again once the store is back places the order.
    @Test func aFailingStoreIsUnavailableForEveryCallerAndAnotherTryOrders() async throws {
        let harness = Harness()
        harness.workshop.failOrders()
        harness.workshop.closeGate()
        let model = harness.model
        let attempts = Task {
            await withTaskGroup(of: Result<Order, CheckoutViewModel.OrderFailure>.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        do {
                            return .success(try await model.placeOrder())
                        } catch let failure as CheckoutViewModel.OrderFailure {
                            return .failure(failure)
                        } catch {
                            Issue.record("not an OrderFailure: \(error)")
                            return .failure(.refused("\(error)", missing: []))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(await harness.output { $0.orderButtonLabel == "Ordering…" } != nil)
        harness.workshop.openGate()
        let results = await attempts.value
        let unavailable = CheckoutViewModel.OrderFailure.unavailable(CheckoutViewModel.unavailableMessage)
        #expect(results.count == 3)
        for result in results {
            #expect(throws: unavailable) { try result.get() }
        }
        // The callers that arrived while the first order was in flight joined it; one that came
        // after its failure tried again, and failed the same way.
        #expect((1...3).contains(harness.workshop.counts.placeOrder))
        let output = harness.model.currentOutput
        #expect(output.notice == CheckoutViewModel.unavailableMessage)
        #expect(output.availability == "Available")
        #expect(output.confirmation == nil)
        #expect(!output.isOrderDisabled)

        harness.workshop.failOrders(false)
        let order = try await harness.model.placeOrder()
        #expect(order.number == "LU-TEST01")
        #expect(harness.model.currentOutput.confirmation?.number == "LU-TEST01")
        await harness.finish()
    }

    // MARK: - A cart's checkout

    static let cartCheckout = Checkout(
        id: "checkout-cart", source: .cart,
        lines: [
            CheckoutLine(guitar: guitar, quantity: 2, availability: .available),
            CheckoutLine(guitar: Guitar(body: .koa), quantity: 1, availability: .available),
        ],
        estimate: BuildEstimate(months: 5), shippingOptions: ShippingOption.standard,
        discount: DiscountCode(code: "BAND10", percent: 10))

    @Test func orderingACartSendsEveryLineAndTheCode() async throws {
        let harness = Harness(checkout: Self.cartCheckout)
        harness.model.selectShipping(.ground)

        let order = try await harness.model.placeOrder()

        #expect(harness.workshop.orderRequests.count == 1)
        let request = try #require(harness.workshop.orderRequests.first)
        #expect(request.checkoutID == "checkout-cart")
        #expect(
            request.lines == [
                CartLine(guitar: Self.guitar, quantity: 2), CartLine(guitar: Guitar(body: .koa), quantity: 1),
            ])
        #expect(request.discountCode == "BAND10")
        #expect(request.shipping == .ground)
        #expect(request.sessionKey == "session")
        #expect(request.rate == .dollar())
        // 2 × $2,225 + $2,100 = $6,550; 10 % off is $655; ground is $100.
        #expect(request.quote.discount == .dollars(655))
        #expect(request.quote.total == .dollars(5995))
        #expect(order.lines == request.lines)
        #expect(order.discountCode == "BAND10")
        let output = harness.model.currentOutput
        #expect(output.grandTotal == "$5,995")
        #expect(output.confirmation?.total == "$5,995")
        #expect(output.confirmation?.guitarCount == 3)
        #expect(harness.model.latestState.order == order)
        await harness.finish()
    }

    @Test func aCartWithAnUnavailableLineCannotBeOrderedAndSaysWhichOrderItIs() async {
        var checkout = Self.cartCheckout
        checkout.lines[1].availability = .unavailable(missing: ["Koa body blanks"])
        let harness = Harness(checkout: checkout)
        #expect(harness.model.currentOutput.orderButtonLabel == "Not all available")
        await #expect(
            throws: CheckoutViewModel.OrderFailure.notOrderable("Some guitars in this order are currently unavailable.")
        ) {
            try await harness.model.placeOrder()
        }
        #expect(harness.workshop.counts.placeOrder == 0)
        await harness.finish()
    }

    @Test func theLatestStateFollowsEveryInputWithoutWaiting() async {
        let harness = Harness(checkout: Self.cartCheckout)
        #expect(harness.model.latestState == CheckoutState(checkout: Self.cartCheckout))
        harness.model.selectShipping(.express)
        harness.model.selectCurrency(.gbp)
        let state = harness.model.latestState
        #expect(state.shipping == .express)
        #expect(state.selectedCurrency == .gbp)
        #expect(state.shownRate == .dollar())
        #expect(state == harness.model.latestState)
        await harness.finish()
    }

    // MARK: - Restoring

    static func snapshot(
        selected: Currency, shown: ExchangeRate, ordered: Bool = false, checkout: Checkout = cartCheckout
    ) -> CheckoutSnapshot {
        var state = CheckoutState(checkout: checkout)
        state.shipping = .ground
        state.selectedCurrency = selected
        state.shownRate = shown
        if ordered {
            let request = OrderRequest(
                checkoutID: checkout.id, lines: checkout.cartLines, shipping: state.shippingOption, rate: shown,
                discount: checkout.discount, sessionKey: "session")
            state.order = Order(
                number: "LU-OLD001", accessKey: "key", checkoutID: checkout.id, lines: request.lines,
                shipping: request.shipping, currency: shown.currency, rate: shown.perDollar,
                discountCode: request.discountCode, quote: request.quote, status: .woodSelection,
                placedAt: Date(timeIntervalSince1970: 0), sessionKey: "session")
        }
        return CheckoutSnapshot(state: state)
    }

    @Test func aRestoredCurrencyWhoseRateHadNotArrivedIsFetchedAfterTheDebounce() async {
        let harness = Harness(restoring: Self.snapshot(selected: .ils, shown: .dollar()))
        var output = harness.model.currentOutput
        #expect(output.currencies.filter(\.isSelected).map(\.code) == ["ILS"])
        #expect(output.arePricesPending)
        #expect(output.grandTotal == "…")
        #expect(output.isOrderDisabled)

        await harness.clock.advance(by: .milliseconds(499))
        #expect(harness.rates.fetches.isEmpty)
        await harness.clock.advance(by: .milliseconds(1))
        #expect(await harness.received(2) == [.currencySettled(.ils), .rateArrived(Self.rate(.ils))])
        output = harness.model.currentOutput
        // 2 × $2,225 + $2,100 = $6,550, less $655, plus $100 ground: $5,995 × 3.25 = ₪19,483.75.
        #expect(output.grandTotal == "₪19,484")
        #expect(output.shipping == "₪325")
        #expect(!output.isOrderDisabled)
        #expect(harness.rates.fetches == [.ils])
        #expect(harness.model.latestState.shownRate.currency == .ils)
        await harness.finish()
    }

    @Test func aRestoredCurrencyAlreadyShownIsNotFetchedAgain() async {
        let euro = ExchangeRate(currency: .eur, perDollar: Decimal(string: "0.83") ?? 0, asOf: FakeExchangeRates.asOf)
        let harness = Harness(restoring: Self.snapshot(selected: .eur, shown: euro))
        #expect(!harness.model.currentOutput.arePricesPending)
        // Nothing was asked for at all: no effect is running to fetch anything later.
        await harness.clock.advance(by: .seconds(5))
        #expect(harness.model.runningEffects == 0)
        #expect(harness.rates.fetches.isEmpty)
        #expect(harness.model.currentOutput.shipping == "€83")
        await harness.finish()
    }

    @Test func aRestoredOrderIsNeverRepricedOrPlacedAgain() async throws {
        let snapshot = Self.snapshot(selected: .gbp, shown: .dollar(), ordered: true)
        let harness = Harness(restoring: snapshot)
        // Nothing was asked for at all: no effect is running to fetch anything later.
        await harness.clock.advance(by: .seconds(5))
        #expect(harness.model.runningEffects == 0)
        #expect(harness.rates.fetches.isEmpty)
        #expect(try await harness.model.placeOrder() == snapshot.order)
        #expect(harness.workshop.counts.placeOrder == 0)
        #expect(harness.model.currentOutput.confirmation?.number == "LU-OLD001")
        await harness.finish()
    }
}
