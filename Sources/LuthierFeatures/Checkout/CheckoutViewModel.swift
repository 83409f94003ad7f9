import LuthierDomain

/// The checkout screen as the web layer drives it: inputs in, outputs out. Its logic is
/// `CheckoutFeature`, run by a `Store`; this type only names the inputs (`selectShipping`,
/// `selectCurrency`, `placeOrder`) and the output (`CheckoutOutput`, published to every reader).
public final class CheckoutViewModel: Sendable {
    public typealias OrderFailure = CheckoutFeature.OrderFailure
    public static let currencyDebounce = CheckoutFeature.currencyDebounce
    public static let unavailableMessage = CheckoutFeature.unavailableMessage

    public let checkout: Checkout
    /// Each line's picture, in line order: drawn once, since a checkout's guitars never change (the
    /// outputs, published on every shipping or currency change, leave them out).
    public let artworks: [GuitarArtwork]
    private let store: Store<CheckoutFeature>
    private let output: SharedOutput<CheckoutState, CheckoutOutput>

    public convenience init(checkout: Checkout, environment: LuthierEnvironment, sessionKey: String) {
        self.init(state: CheckoutState(checkout: checkout), environment: environment, sessionKey: sessionKey)
    }

    /// The checkout as it was saved. If the customer had picked a currency whose rate had not
    /// arrived yet, it is fetched again.
    public convenience init(restoring snapshot: CheckoutSnapshot, environment: LuthierEnvironment, sessionKey: String) {
        self.init(restoring: snapshot, environment: environment, sessionKey: sessionKey, feedback: nil)
    }

    /// As `init(restoring:environment:sessionKey:)`, telling `feedback` of every action an effect
    /// sends back, with the state after it (tests).
    convenience init(
        restoring snapshot: CheckoutSnapshot, environment: LuthierEnvironment, sessionKey: String,
        feedback: AsyncStream<(CheckoutFeature.Action, CheckoutState)>.Continuation?
    ) {
        self.init(
            state: CheckoutState(snapshot: snapshot), environment: environment, sessionKey: sessionKey,
            feedback: feedback)
        if snapshot.selectedCurrency != snapshot.shownRate.currency, snapshot.order == nil {
            store.send(.currencyChosen(snapshot.selectedCurrency))
        }
    }

    /// - Parameter feedback: for tests: every action an effect sends back, with the state after it.
    init(
        state: CheckoutState, environment: LuthierEnvironment, sessionKey: String,
        feedback: AsyncStream<(CheckoutFeature.Action, CheckoutState)>.Continuation? = nil
    ) {
        checkout = state.checkout
        artworks = state.checkout.lines.map { GuitarArtwork(guitar: $0.guitar) }
        store = Store(
            initialState: state, reducer: CheckoutFeature(environment: environment, sessionKey: sessionKey),
            feedback: feedback, tap: environment.taps.map { Tap($0, "checkout") },
            trace: environment.taps.map { StoreTrace($0, store: CheckoutFeature.traceName) })
        output = SharedOutput(initial: state, CheckoutOutput.init(state:))
    }

    /// The shipping input: the shipping row and the grand total follow at once.
    public func selectShipping(_ method: ShippingMethod) {
        store.send(.shippingChosen(method))
    }

    /// The currency input: the picker shows it at once; the rate is fetched after the debounce.
    public func selectCurrency(_ currency: Currency) {
        store.send(.currencyChosen(currency))
    }

    /// The stock input: the workshop's stock changed, so whether the guitars can be built is asked
    /// again, and the page follows the answer (a restocked wood makes "Order now" work again).
    public func stockChanged() {
        store.send(.stockChanged)
    }

    /// Returns when the model is closed. The work it does meanwhile (the debounce, the rate
    /// request, the order) runs in the store; the session's driver awaits this to know the end.
    public func run() async {
        await store.untilClosed()
    }

    /// The order input. Placing the same checkout again, or concurrently, yields the one order.
    @discardableResult
    public func placeOrder() async throws -> Order {
        let before = store.state
        if let order = before.order { return order }
        if !before.isOrdering, let reason = before.whyNotOrderable { throw OrderFailure.notOrderable(reason) }
        // Told by the order's own answer (this tap's, or the one in flight it joined), not by a
        // later state, which another tab's currency choice may already have changed.
        switch await store.answers(to: .orderTapped, joining: CheckoutFeature.orderID).last {
        case .orderPlaced(let order):
            return order
        case .orderFailed(let failure):
            throw failure
        default:
            // Joined an order that ended before it could be awaited: its outcome is in the state.
            let after = store.state
            if let order = after.order { return order }
            if case .orderFailed(let failure) = after.notice { throw failure }
            throw OrderFailure.notOrderable(after.whyNotOrderable ?? Self.unavailableMessage)
        }
    }

    /// Work in flight (a debounce, a rate request, an order): tests check that none was asked for.
    var runningEffects: Int { store.runningEffects }

    /// The state after the latest input or result, without waiting: what a session saves.
    public var latestState: CheckoutState { store.state }

    /// The output now: what a full page renders.
    public var currentOutput: CheckoutOutput { output.output(for: store.state) }

    /// The current output, then every distinct change, to a callback: `outputs()` as Combine's
    /// `sink`, serial, in order and conflated, with no task waiting between changes.
    public func sinkOutputs(_ receive: @escaping @Sendable (CheckoutOutput) -> Void) -> BroadcastSubscription {
        store.sink { [output] state in receive(output.output(for: state)) }
    }

    /// The outputs, from the current one on: each state the store reaches, as the page shows it
    /// (`map`; equal states are left out by the store). Conflated: a slow
    /// reader gets the newest.
    public func outputs() -> SharedOutput<CheckoutState, CheckoutOutput>.Outputs {
        output.outputs(of: store.states())
    }

    /// Ends the outputs and any work in flight: the customer left this checkout.
    public func close() {
        store.close()
    }
}
