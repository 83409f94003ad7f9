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
        let key = CartView.Key(cart: new.cart, button: new.button)
        if old?.cart.guitarCount != new.cart.guitarCount {
            fragments.append(
                Fragment(target: badge, html: renderer.render(cached: new.cart, template: "fragments/cart-badge")))
        }
        if old?.cart.lines != new.cart.lines {
            let html = renderer.render(template: "fragments/cart-lines", key: key) {
                CartView(cart: new.cart, checkoutButton: new.button)
            }
            fragments.append(Fragment(target: lines, html: html))
        }
        // Only the lines fragment shows pictures: the badge, summary and actions (re-rendered on
        // builder changes too) never draw an SVG.
        if old?.cart.total != new.cart.total || old?.cart.discountedTotal != new.cart.discountedTotal
            || old?.cart.discountLabel != new.cart.discountLabel || old?.cart.countLabel != new.cart.countLabel
        {
            let html = renderer.render(template: "fragments/cart-summary", key: key) {
                CartView(cart: new.cart, checkoutButton: new.button, drawingLines: false)
            }
            fragments.append(Fragment(target: summary, html: html))
        }
        if old?.cart.isEmpty != new.cart.isEmpty || old?.button.isLoading != new.button.isLoading
            || old?.button.error != new.button.error
        {
            let html = renderer.render(template: "fragments/cart-actions", key: key) {
                CartView(cart: new.cart, checkoutButton: new.button, drawingLines: false)
            }
            fragments.append(Fragment(target: actions, html: html))
        }
        return fragments
    }
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
    let svg: String

    init(_ line: CartLineOutput) {
        self.line = line
        svg = GuitarArtwork(guitar: line.guitar).svg
    }
}
