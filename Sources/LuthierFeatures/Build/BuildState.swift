import LuthierDomain

/// What the builder remembers between actions.
public struct BuildState: Hashable, Sendable, Codable {
    /// Where the builder's checkout button is.
    public enum CheckoutPhase: Hashable, Sendable, Codable {
        case idle
        /// The three workshop calls are running; the button shows it in every tab.
        case loading
        /// The calls failed; the message says so and the button works again.
        case failed(String)
    }

    public var guitar: Guitar
    public var checkoutPhase: CheckoutPhase
    /// The latest finished checkout: the session's checkout. Out of line: the state is kept by
    /// every session's store and by each step its flight recorder keeps, and most sessions never
    /// check out.
    @OutOfLine public var checkout: Checkout?
    /// The woods out of stock, as last told: the pickers mark them (a customer may still choose
    /// one; the checkout says it is unavailable).
    public var soldOut: Set<StockedWood>
    /// The guided build, once the customer has answered anything in it; nil before (the page
    /// shows a new guide then, and a session that never opens it pays nothing for it).
    public var guide: GuideState?

    public init(
        guitar: Guitar = .standard, checkoutPhase: CheckoutPhase = .idle, checkout: Checkout? = nil,
        soldOut: Set<StockedWood> = [], guide: GuideState? = nil
    ) {
        self.guitar = guitar
        self.checkoutPhase = checkoutPhase
        self.checkout = checkout
        self.soldOut = soldOut
        self.guide = guide
    }

    private enum CodingKeys: String, CodingKey {
        case guitar, checkoutPhase, checkout, soldOut, guide
    }

    /// Reads a state as `Codable` wrote it, including one recorded before the pickers knew the
    /// stock or the guide (a trace from an earlier version): nothing was marked, nobody was guided.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            guitar: try container.decode(Guitar.self, forKey: .guitar),
            checkoutPhase: try container.decode(CheckoutPhase.self, forKey: .checkoutPhase),
            checkout: try container.decodeIfPresent(Checkout.self, forKey: .checkout),
            soldOut: try container.decodeIfPresent(Set<StockedWood>.self, forKey: .soldOut) ?? [],
            guide: try container.decodeIfPresent(GuideState.self, forKey: .guide))
    }

    /// The pure step of the builder's fold (`scan`): the next state from the previous one and an
    /// action, with no effects, so that it can be tested exhaustively and replayed.
    public static func reduce(_ state: BuildState, _ action: BuildAction) -> BuildState {
        var next = state
        switch action {
        case .change(let change):
            next.guitar = state.guitar.applying(change)
        case .startOver:
            next.guitar = .standard
            next.checkout = nil
            if case .failed = state.checkoutPhase { next.checkoutPhase = .idle }
        case .checkoutRequested:
            next.checkoutPhase = .loading
        case .checkoutFinished(let checkout):
            next.checkoutPhase = .idle
            next.checkout = checkout
        case .checkoutFailed(let message):
            next.checkoutPhase = .failed(message)
        case .checkoutEnded:
            next.checkout = nil
        case .stockChanged(let soldOut):
            next.soldOut = soldOut
        case .guide(let action):
            let guide = state.guide ?? GuideState()
            // The review's finish: the builder takes the guide's guitar, in the same fold.
            if action == .finish && guide.refusal(.finish) == nil { next.guitar = guide.guitar }
            next.guide = GuideState.reduce(guide, action)
        }
        return next
    }
}
