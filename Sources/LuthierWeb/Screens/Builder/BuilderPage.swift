import LuthierDomain
import LuthierFeatures

/// What the builder template shows.
struct BuilderPage: Sendable {
    /// What the page is cached by: the builder's output follows from the guitar, the woods out of
    /// stock, the checkout button and the checkout's id, and these hash far faster than the drawn
    /// picture.
    struct Key: Hashable, Sendable {
        let guitar: Guitar
        let soldOut: Set<StockedWood>
        let checkoutButton: CheckoutButton
        let checkoutID: String?
        let cart: CartOutput
    }

    let cart: CartOutput
    let output: BuildOutput
    /// Set when the page is drawn as it was at a moment of the session (the inspector's scrubber).
    var frozen: FrozenMoment? = nil

    var key: Key {
        Key(
            guitar: output.guitar, soldOut: output.soldOut, checkoutButton: output.checkoutButton,
            checkoutID: output.checkoutID, cart: cart)
    }
}
