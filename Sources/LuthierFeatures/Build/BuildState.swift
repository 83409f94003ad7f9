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
    /// The latest finished checkout: the session's checkout.
    public var checkout: Checkout?
    /// The woods out of stock, as last told: the pickers mark them (a customer may still choose
    /// one; the checkout says it is unavailable).
    public var soldOut: Set<StockedWood>

    public init(
        guitar: Guitar = .standard, checkoutPhase: CheckoutPhase = .idle, checkout: Checkout? = nil,
        soldOut: Set<StockedWood> = []
    ) {
        self.guitar = guitar
        self.checkoutPhase = checkoutPhase
        self.checkout = checkout
        self.soldOut = soldOut
    }

    private enum CodingKeys: String, CodingKey {
        case guitar, checkoutPhase, checkout, soldOut
    }

    /// Reads a state as `Codable` wrote it, including one recorded before the pickers knew the
    /// stock (a trace from an earlier version): nothing was marked then.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            guitar: try container.decode(Guitar.self, forKey: .guitar),
            checkoutPhase: try container.decode(CheckoutPhase.self, forKey: .checkoutPhase),
            checkout: try container.decodeIfPresent(Checkout.self, forKey: .checkout),
            soldOut: try container.decodeIfPresent(Set<StockedWood>.self, forKey: .soldOut) ?? [])
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
        }
        return next
    }
}
