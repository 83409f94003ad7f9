import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The cart: its page, the builder's "Add to cart", quantity changes, the discount code and
/// checking out every line at once.
struct CartController: Sendable {
    let sessions: SessionResponses
    let renderer: PageRenderer
    let forms: FormReader

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(
            get: ["/cart": page],
            post: [
                "/cart/items": add, "/cart/lines/:line/:action": changeLine, "/cart/clear": clear,
                "/cart/discount": discount, "/cart/checkout": checkout,
            ])
    }

    /// `GET /cart`: every line with its picture, quantity controls and totals.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await sessions.page(request, context, drawnFromBuildAndCart: "cart") { session in
            let shown = session.shown
            let key = CartView.Key(cart: shown.cart, button: shown.build.checkoutButton)
            return renderer.page(template: "cart", key: key) {
                CartPage(cart: key.cart, view: CartView(cart: key.cart, checkoutButton: key.button))
            }
        }
    }

    /// `POST /cart/items`: adds the builder's current guitar; the same configuration again raises
    /// its line's quantity.
    @Sendable func add(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Add to cart")
        try await context.session.acting { session in
            try await send(.add(session.build.latestState.guitar), to: session)
        }
        return sessions.done(request, redirect: "/")
    }

    /// `POST /cart/lines/{line}/{increment|decrement|remove}`.
    @Sendable func changeLine(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let line = context.parameters.get("line") ?? ""
        let action: CartAction
        switch context.parameters.get("action") ?? "" {
        case "increment": action = .increment(lineID: line)
        case "decrement": action = .decrement(lineID: line)
        case "remove": action = .remove(lineID: line)
        case let other:
            throw UserFacingError(
                .unprocessableContent, "'\(other.prefix(40))' is not a line action; use increment, decrement or remove."
            )
        }
        try await forms.requireNoFields(request, action: "Change quantity")
        try await context.session.acting { session in try await send(action, to: session) }
        return sessions.done(request, redirect: "/cart")
    }

    /// `POST /cart/clear`: "Clear cart".
    @Sendable func clear(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Clear cart")
        try await context.session.acting { session in try await send(.clear, to: session) }
        return sessions.done(request, redirect: "/cart")
    }

    /// `POST /cart/discount` with `code`: applies a configured, unexpired code.
    @Sendable func discount(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let code = try await forms.singleField("code", of: request)
        guard !code.trimmingCharacters(in: .whitespaces).isEmpty, code.utf8.count <= 64 else {
            throw UserFacingError(.unprocessableContent, "code must be a discount code of 1 to 64 characters.")
        }
        try await context.session.acting { session in
            do throws(CartViewModel.DiscountFailure) {
                try await session.cart.applyDiscount(code: code)
            } catch {
                throw UserFacingError(.unprocessableContent, error.message)
            }
        }
        return sessions.done(request, redirect: "/cart")
    }

    /// `POST /cart/checkout`: the checkout of every line, with the code; answers once it exists.
    @Sendable func checkout(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Check out")
        // As the builder's checkout (`CheckoutController.startCheckout`): asked outside the turn.
        let session = try await context.session.acting()
        let cart = session.cart.latestState.cart
        let discount = session.cart.validDiscount
        try await CheckoutController.startCheckout(of: session, in: context.session) {
            try $0.requestCheckout(cart: cart, discount: discount)
        }
        return sessions.done(request, redirect: "/checkout")
    }

    private func send(_ action: CartAction, to session: Session) async throws(UserFacingError) {
        do {
            try await session.cart.send(action)
        } catch {
            if case .unknownLine(let id) = error {
                throw UserFacingError(.notFound, CartError.unknownLine(id: String(id.prefix(64))).message)
            }
            throw UserFacingError(.unprocessableContent, error.message)
        }
    }
}
