import LuthierDomain

/// Everything one customer's pages show, combined: the builder's output, the cart's, and the
/// checkout's while there is one (the seeds' `combineLatest` of the three screens, with the
/// checkout `flatMapLatest`-ed on the builder's checkout id).
public struct SessionOutput: Equatable, Sendable {
    public var build: BuildOutput
    public var cart: CartOutput
    /// The output of the checkout the builder is on; nil on the builder or the cart. Out of
    /// line: every session keeps its combined output, and most never check out.
    @OutOfLine public var checkout: CheckoutOutput?

    public init(build: BuildOutput, cart: CartOutput, checkout: CheckoutOutput?) {
        self.build = build
        self.cart = cart
        self.checkout = checkout
    }
}

/// One step of the session's output, as its renderer takes it.
public struct SessionChange: Sendable {
    /// Which screen moved.
    public enum Source: Sendable {
        case build, cart, checkout
    }

    public let previous: SessionOutput
    public let current: SessionOutput
    public let source: Source

    public init(previous: SessionOutput, current: SessionOutput, source: Source) {
        self.previous = previous
        self.current = current
        self.source = source
    }

    /// Where every open page of the session goes (navigation is an output too): to the checkout
    /// when one starts, back to the builder when it ends; nil to stay.
    public var navigation: String? {
        let before = previous.build.checkoutID
        let after = current.build.checkoutID
        guard before != after else { return nil }
        return after == nil ? "/" : "/checkout"
    }

    /// A change the customer did not post, made by the checkout after it was shown (a rate that
    /// arrived, an order confirmed): the session saves it without anyone waiting for the answer.
    public var isCheckoutProgress: Bool {
        source == .checkout && previous.checkout != nil && previous.checkout?.checkoutID == current.checkout?.checkoutID
    }
}

extension SessionChange {
    /// What changed, in a few words, for the inspector's output lane: the screen and what it shows.
    public var summary: String {
        switch source {
        case .build: "build: \(current.build.description), \(current.build.price)"
        case .cart: "cart: \(current.cart.countLabel), \(current.cart.total)"
        case .checkout: "checkout: \(current.checkout?.grandTotal ?? "none")"
        }
    }
}
