import LuthierDomain
import Synchronization

/// The builder screen as an input/output transformation, with no HTTP in it.
///
/// Inputs are `BuildAction`s (what a form post carries). They are folded, one at a time, over
/// the previous `BuildState` by the pure `BuildState.reduce` — a `scan` — and every state is mapped
/// to a `BuildOutput` that is published to all readers. Being an actor serialises the fold, so two
/// tabs posting at once can never lose each other's change, and `send` returns only once the change
/// is applied: a route that answers 204 or 303 after it has really taken effect.
public actor BuildViewModel {
    public enum CheckoutFailure: Error, Equatable, Sendable {
        case workshopUnreachable
        /// A cart with no lines has nothing to check out.
        case emptyCart
    }

    private var state: BuildState
    private let output: CurrentValueBroadcast<BuildOutput>
    private let environment: LuthierEnvironment
    private let sessionKey: String
    private var checkoutInFlight: Task<CheckoutViewModel, any Error>?
    private let checkoutBox = Mutex<CheckoutViewModel?>(nil)
    private let latest: Mutex<BuildState>

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
        self.state = state
        self.environment = environment
        self.sessionKey = sessionKey
        output = CurrentValueBroadcast(BuildOutput(state: state))
        latest = Mutex(state)
        if let restoredCheckout {
            checkoutBox.withLock {
                $0 = CheckoutViewModel(restoring: restoredCheckout, environment: environment, sessionKey: sessionKey)
            }
        }
    }

    /// Applies one input.
    public func send(_ action: BuildAction) {
        if action == .startOver || action == .checkoutEnded {
            endCheckout()
        }
        apply(action)
    }

    /// The checkout input for the builder's one guitar: asks the workshop for availability, the
    /// estimate and the shipping options at once (`async let`, a zip), and makes the result the
    /// session's checkout.
    ///
    /// Each call runs once per checkout. A second request while one is loading starts nothing: it
    /// joins the one in flight (whether it came from the builder or the cart). The calls run in a
    /// task of their own so that a closed tab cannot abandon a checkout half-way.
    public func checkout() async throws -> CheckoutViewModel {
        try await checkout([CartLine(guitar: state.guitar, quantity: 1)], source: .builder, discount: nil)
    }

    /// The checkout input for a whole cart: every line, and its discount code if still valid.
    public func checkout(cart: Cart, discount: DiscountCode?) async throws -> CheckoutViewModel {
        guard !cart.isEmpty else { throw CheckoutFailure.emptyCart }
        return try await checkout(cart.lines, source: .cart, discount: discount)
    }

    private func checkout(
        _ lines: [CartLine], source: Checkout.Source, discount: DiscountCode?
    ) async throws -> CheckoutViewModel {
        if let inFlight = checkoutInFlight {
            return try await inFlight.value
        }
        let environment = environment
        apply(.checkoutStarted)
        let task = Task { () throws -> CheckoutViewModel in
            do {
                async let availability = environment.workshop.availability(lines)
                async let estimate = environment.workshop.estimate(lines)
                async let shippingOptions = environment.workshop.shippingOptions(lines)
                let answers = try await availability
                guard answers.count == lines.count else { throw CheckoutFailure.workshopUnreachable }
                let checkout = Checkout(
                    id: environment.makeID(),
                    source: source,
                    lines: zip(lines, answers).map { line, availability in
                        CheckoutLine(guitar: line.guitar, quantity: line.quantity, availability: availability)
                    },
                    estimate: try await estimate,
                    shippingOptions: try await shippingOptions,
                    discount: discount
                )
                return self.checkoutArrived(checkout)
            } catch {
                self.apply(.checkoutFailed("The workshop could not be reached; please try again."))
                throw CheckoutFailure.workshopUnreachable
            }
        }
        checkoutInFlight = task
        defer { checkoutInFlight = nil }
        return try await task.value
    }

    private func checkoutArrived(_ checkout: Checkout) -> CheckoutViewModel {
        let model = CheckoutViewModel(checkout: checkout, environment: environment, sessionKey: sessionKey)
        let previous = checkoutBox.withLock { box in
            defer { box = model }
            return box
        }
        previous?.close()
        apply(.checkoutFinished(checkout))
        return model
    }

    private func endCheckout() {
        let previous = checkoutBox.withLock { box in
            defer { box = nil }
            return box
        }
        previous?.close()
    }

    private func apply(_ action: BuildAction) {
        state = BuildState.reduce(state, action)
        latest.withLock { $0 = state }
        output.send(BuildOutput(state: state))
    }

    /// The current state, for tests.
    public var currentState: BuildState { state }

    /// The state after the latest applied input, without waiting: what a session saves.
    public nonisolated var latestState: BuildState { latest.withLock { $0 } }

    /// The session's checkout, if one has been made and not left.
    public nonisolated var currentCheckout: CheckoutViewModel? { checkoutBox.withLock { $0 } }

    /// The output now, without waiting: what a full page render needs.
    public nonisolated var currentOutput: BuildOutput { output.value }

    /// The current output, then every distinct change; a slow reader sees only the newest.
    public nonisolated func outputs() -> AsyncStream<BuildOutput> {
        output.values()
    }

    /// How many readers follow the outputs (used to prove streams are released).
    public nonisolated var outputSubscriberCount: Int { output.subscriberCount }

    /// Ends every output sequence; used when the session that owns the model goes away.
    public nonisolated func close() {
        output.finish()
        checkoutBox.withLock { $0 }?.close()
    }
}
