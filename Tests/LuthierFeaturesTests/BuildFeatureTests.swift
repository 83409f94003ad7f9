import LuthierDomain
import Testing

@testable import LuthierFeatures

/// The builder's reducer in its store: the checkout is the workshop's three answers zipped into one
/// action; a request while one loads asks nothing.
@Suite struct BuildFeatureTests {
    static let request = CheckoutRequest(
        lines: [CartLine(guitar: Guitar(shape: .longV), quantity: 1)], source: .builder)

    static func store(_ workshop: FakeWorkshop) -> TestStore<BuildFeature> {
        TestStore(initialState: BuildState(), reducer: BuildFeature(environment: .test(workshop: workshop.client)))
    }

    @Test("a checkout asks each of the three questions once and comes back as one action")
    func checkoutIsOneZippedAnswer() async {
        let workshop = FakeWorkshop()
        workshop.closeGate()
        var store = Self.store(workshop)
        store.send(.checkoutRequested(Self.request)) { $0.checkoutPhase = .loading }
        // Another tab asks meanwhile: the state says it is loading already, and nothing more is asked.
        store.send(
            .checkoutRequested(CheckoutRequest(lines: [CartLine(guitar: .standard, quantity: 2)], source: .cart)))
        workshop.openGate()
        let checkout = Checkout(
            id: "checkout-1", source: .builder,
            lines: [CheckoutLine(guitar: Guitar(shape: .longV), quantity: 1, availability: .available)],
            estimate: BuildEstimate(months: 3), shippingOptions: ShippingOption.standard)
        await store.receive(.checkoutFinished(checkout)) {
            $0.checkoutPhase = .idle
            $0.checkout = checkout
        }
        #expect(workshop.counts == FakeWorkshop.Counts(availability: 1, estimate: 1, shippingOptions: 1))
        await store.finish()
    }

    @Test("one failed answer fails the checkout with a sentence, and the button works again")
    func oneFailedAnswerFailsIt() async {
        let workshop = FakeWorkshop()
        workshop.failEstimates()
        var store = Self.store(workshop)
        store.send(.checkoutRequested(Self.request)) { $0.checkoutPhase = .loading }
        await store.receive(.checkoutFailed(BuildFeature.unreachableMessage)) {
            $0.checkoutPhase = .failed(BuildFeature.unreachableMessage)
        }
        store.send(.checkoutRequested(Self.request)) { $0.checkoutPhase = .loading }
        await store.receive(.checkoutFailed(BuildFeature.unreachableMessage)) {
            $0.checkoutPhase = .failed(BuildFeature.unreachableMessage)
        }
        #expect(workshop.counts.estimate == 2)
        await store.finish()
    }
}
