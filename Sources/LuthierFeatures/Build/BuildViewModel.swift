import LuthierDomain
import Synchronization

/// The builder screen as the web layer drives it: inputs in, outputs out. Its logic is
/// `BuildFeature`, run by a `Store`; this type names the inputs (`send`, `checkout`) and the output
/// (`BuildOutput`, shared by every reader), and keeps the session's `CheckoutViewModel` in step
/// with the checkout the state holds.
///
/// Actions are applied one at a time, so two tabs posting at once never lose each other's change,
/// and `send` returns once the change is applied: a route answers 204 or 303 after it has really
/// taken effect.
public final class BuildViewModel: Sendable {
    public enum CheckoutFailure: Error, Equatable, Sendable {
        case workshopUnreachable
        /// A cart with no lines has nothing to check out.
        case emptyCart
    }

    private let store: Store<BuildFeature>
    private let output: SharedOutput<BuildState, BuildOutput>
    private let environment: LuthierEnvironment
    private let sessionKey: String
    /// The model of the checkout the state holds (made once per checkout, closed when it goes).
    private let checkoutBox = Mutex<CheckoutViewModel?>(nil)

    /// - Parameters:
    ///   - sessionKey: the session's anonymous key; orders placed from here carry it.
    ///   - restoredCheckout: the session's checkout as it was saved, to pick up where it was.
    public init(
        state: BuildState = BuildState(),
        environment: LuthierEnvironment,
        sessionKey: String,
        restoredCheckout: CheckoutSnapshot? = nil
    ) {
        var state = state
        state.checkoutPhase = .idle
        state.checkout = restoredCheckout?.checkout
        store = Store(
            initialState: state, reducer: BuildFeature(environment: environment),
            tap: environment.taps.map { Tap($0, "build") },
            trace: environment.taps.map { StoreTrace($0, store: BuildFeature.traceName) })
        output = SharedOutput(initial: state, BuildOutput.init(state:))
        self.environment = environment
        self.sessionKey = sessionKey
        if let restoredCheckout {
            checkoutBox.withLock {
                $0 = CheckoutViewModel(restoring: restoredCheckout, environment: environment, sessionKey: sessionKey)
            }
        }
    }

    /// The stock input: the woods out of stock now, which the pickers mark.
    public func stockChanged(soldOut: Set<StockedWood>) {
        store.send(.stockChanged(soldOut: soldOut))
    }

    /// Applies one input.
    public func send(_ action: BuildAction) async {
        store.send(action)
        _ = currentCheckout
    }

    /// The checkout input for the builder's one guitar. Each workshop call runs once per checkout;
    /// a second request while one is loading starts nothing and gets the same checkout (whether the
    /// first came from the builder or the cart). The calls run in the store's task, so a closed tab
    /// cannot abandon a checkout half-way.
    public func checkout() async throws -> CheckoutViewModel {
        try await requestCheckout().value()
    }

    /// The checkout input for a whole cart: every line, and its discount code if still valid.
    public func checkout(cart: Cart, discount: DiscountCode?) async throws -> CheckoutViewModel {
        try await requestCheckout(cart: cart, discount: discount).value()
    }

    /// Sends the builder's checkout input now, and returns what to await for its checkout.
    public func requestCheckout() -> PendingCheckout {
        request(CheckoutRequest(lines: [CartLine(guitar: store.state.guitar, quantity: 1)], source: .builder))
    }

    /// Sends a cart's checkout input now, and returns what to await for its checkout.
    public func requestCheckout(cart: Cart, discount: DiscountCode?) throws(CheckoutFailure) -> PendingCheckout {
        guard !cart.isEmpty else { throw .emptyCart }
        return request(CheckoutRequest(lines: cart.lines, source: .cart, discount: discount))
    }

    private func request(_ request: CheckoutRequest) -> PendingCheckout {
        PendingCheckout(sent: store.send(.checkoutRequested(request)), model: self)
    }

    /// A checkout input sent: its answer, the session's checkout, is awaited with `value()`.
    public struct PendingCheckout: Sendable {
        let sent: Store<BuildFeature>.Sent
        let model: BuildViewModel

        /// The checkout this request made or joined, once the workshop has answered. Told by the
        /// answer itself, not by the state after it: another tab may leave the checkout or start
        /// another before this request reads it.
        public func value() async throws -> CheckoutViewModel {
            switch await model.store.answers(of: sent, joining: BuildFeature.checkoutID).last {
            case .checkoutFinished(let checkout):
                return model.model(for: checkout)
            case .checkoutFailed:
                throw CheckoutFailure.workshopUnreachable
            default:
                // Joined one that ended before it could be awaited: its answer is in the state.
                let state = model.store.state
                guard state.checkoutPhase == .idle, let checkout = state.checkout else {
                    throw CheckoutFailure.workshopUnreachable
                }
                return model.model(for: checkout)
            }
        }
    }

    /// The model of `checkout`: the session's current one if it is that checkout; otherwise (left or
    /// replaced by another tab meanwhile) one made for it and closed at once, as the session's
    /// would have been.
    private func model(for checkout: Checkout) -> CheckoutViewModel {
        if let current = currentCheckout, current.checkout == checkout { return current }
        let gone = CheckoutViewModel(checkout: checkout, environment: environment, sessionKey: sessionKey)
        gone.close()
        return gone
    }

    /// The state after the latest applied input, without waiting: what a session saves.
    public var latestState: BuildState { store.state }
    /// How many times the state has changed (`Store.revision`): what a page drawn from it is
    /// remembered by.
    public var stateRevision: UInt64 { store.revision }

    /// The session's checkout, if one has been made and not left: the model of the checkout the
    /// state holds, made the first time it is asked for, the one before closed.
    public var currentCheckout: CheckoutViewModel? {
        let wanted = store.state.checkout
        let (model, replaced) = checkoutBox.withLock { box -> (CheckoutViewModel?, CheckoutViewModel?) in
            // Compared whole, not by id: each checkout that arrives is a new one.
            guard box?.checkout != wanted else { return (box, nil) }
            let replaced = box
            box = wanted.map { CheckoutViewModel(checkout: $0, environment: environment, sessionKey: sessionKey) }
            return (box, replaced)
        }
        replaced?.close()
        return model
    }

    /// The output now, without waiting: what a full page render needs.
    public var currentOutput: BuildOutput { output.output(for: store.state) }

    /// The current output, then every distinct change, to a callback: `outputs()` as Combine's
    /// `sink`, serial, in order and conflated, with no task waiting between changes.
    public func sinkOutputs(_ receive: @escaping @Sendable (BuildOutput) -> Void) -> BroadcastSubscription {
        store.sink { [output] state in receive(output.output(for: state)) }
    }

    /// The current output, then every distinct change; a slow reader sees only the newest.
    public func outputs() -> SharedOutput<BuildState, BuildOutput>.Outputs {
        output.outputs(of: store.states())
    }

    /// How many readers follow the outputs (used to prove streams are released).
    public var outputSubscriberCount: Int { store.subscriberCount }

    /// Returns once the number of the output's readers meets `condition` (false if cancelled first).
    public func untilOutputSubscribers(_ condition: @escaping @Sendable (Int) -> Bool) async -> Bool {
        await store.untilSubscribers(condition)
    }

    /// Ends every output sequence; used when the session that owns the model goes away.
    public func close() {
        store.close()
        checkoutBox.withLock { $0 }?.close()
    }
}
