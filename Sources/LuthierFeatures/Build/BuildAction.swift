import LuthierDomain

/// Everything that happens to the builder: the customer's inputs and the results of its effects.
public enum BuildAction: Hashable, Sendable {
    /// One form post's worth of picker changes.
    case change(GuitarChange)
    /// Back to the standard guitar (also what "Dismiss" after an order does).
    case startOver
    /// The checkout button was pressed and the workshop calls began.
    case checkoutStarted
    /// The three calls answered.
    case checkoutFinished(Checkout)
    /// One of them failed.
    case checkoutFailed(String)
    /// The customer left the checkout (or ordered and dismissed it).
    case checkoutEnded
}
