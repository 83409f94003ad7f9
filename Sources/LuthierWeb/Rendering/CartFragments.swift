import LuthierFeatures

/// The parts of the cart page (and the badge on every page) that change, like `BuildFragments`
/// for the builder. They are rendered from the cart's output and the checkout button together.
enum CartFragments {
    static let badge = "cart-badge"
    static let lines = "cart-lines"
    static let summary = "cart-summary"
    static let actions = "cart-actions"

    /// Every fragment, for a new session.
    static func all(_ cart: CartOutput, checkoutButton: CheckoutButton, renderer: PageRenderer) -> [Fragment] {
        changed(from: nil, to: (cart, checkoutButton), renderer: renderer)
    }

    /// Only the fragments whose part differs; `nil` means render everything.
    static func changed(
        from old: (cart: CartOutput, button: CheckoutButton)?,
        to new: (cart: CartOutput, button: CheckoutButton),
        renderer: PageRenderer
    ) -> [Fragment] {
        var fragments: [Fragment] = []
        // Only the lines fragment shows pictures: the badge, summary and actions (re-rendered on
        // builder changes too) never draw an SVG.
        let view = CartView(cart: new.cart, checkoutButton: new.button, drawingLines: false)
        if old?.cart.guitarCount != new.cart.guitarCount {
            fragments.append(
                Fragment(target: badge, html: renderer.render(new.cart, template: "fragments/cart-badge")))
        }
        if old?.cart.lines != new.cart.lines {
            let drawn = CartView(cart: new.cart, checkoutButton: new.button)
            fragments.append(Fragment(target: lines, html: renderer.render(drawn, template: "fragments/cart-lines")))
        }
        if old?.cart.total != new.cart.total || old?.cart.discountedTotal != new.cart.discountedTotal
            || old?.cart.discountLabel != new.cart.discountLabel || old?.cart.countLabel != new.cart.countLabel
        {
            fragments.append(
                Fragment(target: summary, html: renderer.render(view, template: "fragments/cart-summary")))
        }
        if old?.cart.isEmpty != new.cart.isEmpty || old?.button.isLoading != new.button.isLoading
            || old?.button.error != new.button.error
        {
            fragments.append(
                Fragment(target: actions, html: renderer.render(view, template: "fragments/cart-actions")))
        }
        return fragments
    }
}

/// What the cart templates show: the cart's output, each line with its picture, and the
/// checkout button's state (a checkout may be loading, from this page or the builder).
struct CartView: Sendable {
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
    let svg: String

    init(_ line: CartLineOutput) {
        self.line = line
        svg = GuitarArtwork(guitar: line.guitar).svg
    }
}
