import LuthierFeatures

/// What the cart template shows.
struct CartPage: Sendable {
    let cart: CartOutput
    let view: CartView
    /// Set when the page is drawn as it was at a moment of the session (the inspector's scrubber).
    var frozen: FrozenMoment? = nil
}
