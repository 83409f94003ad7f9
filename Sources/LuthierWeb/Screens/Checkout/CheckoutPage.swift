import LuthierFeatures

/// What the checkout template shows.
struct CheckoutPage: Sendable {
    /// What a checkout page is cached by.
    struct Key: Hashable, Sendable {
        let cart: CartOutput
        let output: CheckoutOutput
        let checkoutID: String
    }

    let cart: CartOutput
    let output: CheckoutOutput
    let pictures: [Picture]
    /// Set when the page is drawn as it was at a moment of the session (the inspector's scrubber).
    var frozen: FrozenMoment? = nil
}
