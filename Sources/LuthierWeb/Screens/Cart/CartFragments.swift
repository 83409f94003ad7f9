import LuthierFeatures

/// The parts of the cart page (and the badge on every page) that change. They show the cart's
/// output and the builder's checkout button together (a checkout may be loading, from the cart
/// or the builder).
enum CartFragments {
    static let badge = "cart-badge"
    static let lines = "cart-lines"
    static let summary = "cart-summary"
    static let actions = "cart-actions"

    /// What the cart's fragments show.
    struct Input: Sendable {
        let cart: CartOutput
        let button: CheckoutButton
    }

    // Only the lines fragment shows pictures: the badge, summary and actions (re-rendered on
    // builder changes too) never draw an SVG.
    static let table = FragmentTable<Input>([
        .fragment(badge, "fragments/cart-badge", context: \.cart, shows: \.cart.guitarCount, \.cart.countLabel),
        .list(
            lines, "fragments/cart-lines", context: { CartView(cart: $0.cart, checkoutButton: $0.button) },
            frame: \.cart.isEmpty, items: \.cart.lines, item: "fragments/cart-line", id: { "line-\($0.id)" },
            itemContext: CartLineView.init),
        .fragment(
            summary, "fragments/cart-summary", announce: .polite,
            context: { CartView(cart: $0.cart, checkoutButton: $0.button, drawingLines: false) },
            shows: \.cart.total, \.cart.discountedTotal, \.cart.discountLabel, \.cart.discount, \.cart.countLabel),
        .fragment(
            actions, "fragments/cart-actions", announce: .status,
            context: { CartView(cart: $0.cart, checkoutButton: $0.button, drawingLines: false) },
            shows: \.cart.isEmpty, \.button.isLoading, \.button.error),
    ])
}

/// What the cart templates show: the cart's output, each line with its picture, and the
/// checkout button's state (a checkout may be loading, from this page or the builder).
struct CartView: Sendable {
    /// Everything a cart view shows is determined by these two: what its renders are cached by.
    struct Key: Hashable, Sendable {
        let cart: CartOutput
        let button: CheckoutButton
    }

    let cart: CartOutput
    let lines: [CartLineView]
    let checkoutLabel: String
    let isCheckoutDisabled: Bool
    let isCheckingOut: Bool
    let checkoutError: String?

    /// - Parameter drawingLines: whether to draw each line's picture (only the lines need them).
    init(cart: CartOutput, checkoutButton: CheckoutButton, drawingLines: Bool = true) {
        self.cart = cart
        lines = drawingLines ? cart.lines.map(CartLineView.init) : []
        checkoutLabel = checkoutButton.isLoading ? "Checking out…" : "Check out"
        isCheckoutDisabled = cart.isEmpty || checkoutButton.isLoading
        isCheckingOut = checkoutButton.isLoading
        checkoutError = checkoutButton.error
    }
}

/// One cart line with its picture.
struct CartLineView: Sendable {
    let line: CartLineOutput
    let image: String

    init(_ line: CartLineOutput) {
        self.line = line
        image = GuitarArtwork(guitar: line.guitar).image
    }
}
