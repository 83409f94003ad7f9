import LuthierDomain

/// Everything that happens to the builder: the customer's inputs and the results of its effects.
///
/// The cases carrying a checkout are `indirect`, so that an action is 17 bytes rather than 82:
/// small enough to be kept inline where it is type-erased (each step a flight recorder keeps),
/// where a larger one takes an allocation of its own.
public enum BuildAction: Hashable, Sendable, Codable {
    /// One form post's worth of picker changes.
    case change(GuitarChange)
    /// Back to the standard guitar (also what "Dismiss" after an order does).
    case startOver
    /// A checkout button was pressed (the builder's or the cart's): the workshop is asked about
    /// these lines, unless a checkout is loading already, which the request then joins.
    indirect case checkoutRequested(CheckoutRequest)
    /// The three calls answered.
    indirect case checkoutFinished(Checkout)
    /// One of them failed.
    case checkoutFailed(String)
    /// The customer left the checkout (or ordered and dismissed it).
    case checkoutEnded
    /// The woods out of stock now (an order took the last piece, the workshop restocked one):
    /// the pickers mark them.
    case stockChanged(soldOut: Set<StockedWood>)
    /// A step of the guided build (`GuideState`); its finish hands the guide's guitar to the builder.
    case guide(GuideAction)
}

/// What a checkout is asked for: the guitars, where from, and the cart's code if it has one.
public struct CheckoutRequest: Hashable, Sendable, Codable {
    public var lines: [CartLine]
    public var source: Checkout.Source
    public var discount: DiscountCode?

    public init(lines: [CartLine], source: Checkout.Source, discount: DiscountCode? = nil) {
        self.lines = lines
        self.source = source
        self.discount = discount
    }
}
