import LuthierFeatures

/// Every fragment of a customer's pages, from the session's combined output: the builder's, the
/// cart's (shown with the builder's checkout button, so a change of either is one patch) and the
/// checkout's while there is one, and the guided build's once it has begun.
enum SessionFragments {
    static let table = FragmentTable<SessionOutput>([
        BuildFragments.table.pullback { $0.build },
        CartFragments.table.pullback { CartFragments.Input(cart: $0.cart, button: $0.build.checkoutButton) },
        CheckoutFragments.table.pullback { $0.checkout },
        GuideFragments.table.pullback { $0.build.guide },
    ])
}
