import Foundation
import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery
import Synchronization

/// Checkout and ordering: the checkout page and its shipping, currency and order posts.
struct CheckoutController: Sendable {
    let sessions: SessionResponses
    let environment: LuthierEnvironment
    let renderer: PageRenderer
    let forms: FormReader
    /// Orders a session and a client address may place over time: scarce woods are not for a
    /// script to sweep up in seconds.
    let orderLimits: OrderLimits
    /// The pieces of a scarce wood one order, session and client may take.
    let scarceWoods: ScarceWoodLimits
    /// The stock of every wood now, which says which woods are scarce.
    let stock: @Sendable () async throws -> [StockedWood: Int]
    /// Counts the orders placed.
    let metrics: ShopMetrics
    /// The woods out of stock after the order numbered so, so that one it took the last of is
    /// marked in every builder (the live store learned them placing it, and asks nothing again).
    let soldOut: @Sendable (_ afterOrder: String) async throws -> Set<StockedWood>

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(
            get: ["/checkout": page],
            post: [
                "/checkout": start, "/checkout/shipping": shipping, "/checkout/currency": currency,
                "/checkout/order": order, "/checkout/dismiss": dismiss, "/checkout/leave": leave,
            ])
    }

    /// `POST /checkout`: runs the three workshop calls (or joins the ones running) and answers
    /// once the checkout exists, so a plain form post can be redirected straight to it.
    @Sendable func start(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Checkout")
        let session = try await context.session.acting()
        try await Self.startCheckout(of: session, in: context.session) { $0.requestCheckout() }
        return sessions.done(request, redirect: "/checkout")
    }

    /// Starts (or joins) a checkout, `request` being the builder's or the cart's, and answers once
    /// it is stored: `503` when the workshop cannot be reached or the checkout could not be stored
    /// (it is then undone: no tab goes to it). One another tab left or replaced meanwhile is
    /// answered as made: the page shows what the session holds.
    ///
    /// The workshop is asked outside the session's turn: concurrent posts (a double click, two
    /// tabs) join the one checkout the first started, and the workshop's calls hold up nothing
    /// else. The checkout arrives held, shown only once a save has stored it (`ShopSession`); the
    /// turn taken after makes sure of that save.
    static func startCheckout(
        of session: Session, in requestSession: RequestSession,
        _ request: @Sendable (BuildViewModel) throws -> BuildViewModel.PendingCheckout
    ) async throws {
        let undone = session.rollbacks
        let model: CheckoutViewModel
        do {
            model = try await request(session.build).value()
        } catch BuildViewModel.CheckoutFailure.emptyCart {
            throw UserFacingError(.conflict, "Your cart is empty; add a guitar from the builder first.")
        } catch {
            throw UserFacingError(
                .serviceUnavailable, "The workshop could not be reached; please try again.", retryAfter: 5)
        }
        try await requestSession.act { session in
            guard session.build.latestState.checkout?.id != model.checkout.id, session.rollbacks != undone else {
                return
            }
            throw UserFacingError(
                .serviceUnavailable, "Your checkout could not be saved; please try again.", retryAfter: 5)
        }
    }

    /// `GET /checkout`: the session's checkout, or back to the builder when there is none.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard let session = try await context.session.existing() else { return sessions.responses.seeOther("/") }
        let version = session.fragments.version
        // The checkout the tabs show: one not stored yet is not there.
        let shown = session.shown
        guard let output = shown.checkout, let checkout = session.build.currentCheckout,
            checkout.checkout.id == output.checkoutID
        else { return sessions.responses.seeOther("/") }
        // A checkout's guitars never change, so its id stands for its pictures in the key.
        let key = CheckoutPage.Key(cart: shown.cart, output: output, checkoutID: checkout.checkout.id)
        return sessions.responses.page(
            renderer.page(template: "checkout", key: key) {
                CheckoutPage(
                    cart: key.cart, output: key.output, pictures: checkout.artworks.map { Picture(image: $0.image) })
            }, version: version, for: request)
    }

    /// `POST /checkout/shipping` with `option` = pickup | ground | express.
    @Sendable func shipping(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let method = try await forms.singleOption("option", of: request, as: ShippingMethod.self)
        try await context.session.acting { session in try checkout(of: session).selectShipping(method) }
        return sessions.done(request, redirect: "/checkout")
    }

    /// `POST /checkout/currency` with `currency` = USD | EUR | GBP | ILS.
    @Sendable func currency(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let currency = try await forms.singleOption("currency", of: request, as: Currency.self)
        try await context.session.acting { session in try checkout(of: session).selectCurrency(currency) }
        return sessions.done(request, redirect: "/checkout")
    }

    /// `POST /checkout/order`: places the order (once per checkout, however often it is posted),
    /// within the session's and the client's order limits (429 past them).
    @Sendable func order(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Order")
        let session = try await context.session.acting()
        let ordering = try checkout(of: session).checkout
        let placed = ordering.id
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        // What this post took of the limits, if it is the one that orders. Taken in the session's
        // turn, where the posts of one order (a double click, tabs) follow one another: the first
        // places it and counts, and the others find it placed and count nothing. Taken before the
        // turn, every post of one order would take an order of the session's few an hour, and
        // those past the limit would be refused an order that was being placed.
        let taken = Mutex<(order: OrderLimits.Taken?, scarce: ScarceWoodLimits.Taken?)>((nil, nil))
        let giveBack = {
            let (order, scarce) = taken.withLock { taken in
                defer { taken = (nil, nil) }
                return taken
            }
            order?.giveBack()
            scarce?.giveBack()
        }
        let number = Mutex<String?>(nil)
        do {
            // Placed, with the cart settled, and saved in the session's turn. Made again on the
            // session as another instance stored it meanwhile, the order (placed once per
            // checkout) is found again and settles that cart, and takes nothing again.
            try await context.session.act { session in
                guard let model = session.build.currentCheckout, model.checkout.id == placed else {
                    throw UserFacingError(
                        .conflict,
                        "Your checkout was changed in another window at the same moment; please look at it again.")
                }
                // An id an order replaced may repeat that order (a double click), never place
                // another: its answer would carry the session's newest id to whoever holds the old.
                if model.latestState.order == nil, context.session.sentReplacedID(of: session) {
                    throw RequestSession.replacedRefusal
                }
                // Posting an order that is already placed answers it again and counts nothing.
                if model.latestState.order == nil, taken.withLock({ $0.order == nil }) {
                    let order = try orderLimits.take(session: session.orderKey, client: client)
                    taken.withLock { $0.order = order }
                    let scarce = try await takeScarceWoods(of: model, session: session, client: client)
                    taken.withLock { $0.scarce = scarce }
                }
                let order = try await session.shop.placeOrder(model)
                number.withLock { $0 = order.number }
            }
        } catch let failure as CheckoutViewModel.OrderFailure {
            giveBack()
            switch failure {
            case .notOrderable(let message), .refused(let message, _):
                throw UserFacingError(.conflict, message)
            case .unavailable(let message):
                // The store failed (locked, full): nothing was ordered, and trying again may work.
                throw UserFacingError(.serviceUnavailable, message, retryAfter: 5)
            }
        } catch {
            giveBack()
            throw error
        }
        // A new id once an order is placed: one planted before stops working here.
        if taken.withLock({ $0.order != nil }) {
            metrics.orderPlaced(guitars: ordering.guitarCount)
            await sessions.rotate(session, once: placed, for: context.session)
            // A failed read leaves the builders as they were; the order stands.
            if let number = number.withLock({ $0 }), let woods = try? await soldOut(number) {
                sessions.registry.orderTookStock(soldOut: woods)
            }
        }
        return sessions.done(request, redirect: "/checkout")
    }

    /// Refuses an order that takes more of a scarce wood than one order may (`422`), or than the
    /// session or the client may over time (`429`); otherwise counts what it takes. A stock that
    /// cannot be read judges nothing here: the order's own transaction then decides.
    private func takeScarceWoods(
        of model: CheckoutViewModel, session: Session, client: String
    ) async throws -> ScarceWoodLimits.Taken? {
        guard scarceWoods.rule.canMakeAWoodScarce, let stock = try? await stock() else { return nil }
        let needs = WoodNeed.of(model.checkout.cartLines)
        if let refusal = scarceWoods.rule.refusal(ordering: needs, stock: stock) {
            throw UserFacingError(.unprocessableContent, refusal)
        }
        let scarce = scarceWoods.rule.scarceNeeds(needs, stock: stock)
        guard !scarce.isEmpty else { return nil }
        return try scarceWoods.take(scarce, session: session.orderKey, client: client)
    }

    /// `POST /checkout/dismiss`: after the congratulations, back to a builder reset to defaults.
    @Sendable func dismiss(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Dismiss")
        try await context.session.acting { session in
            // After a cart's order the builder keeps its guitar; after the builder's, it starts over.
            let fromCart = session.build.currentCheckout?.checkout.source == .cart
            await session.build.send(fromCart ? .checkoutEnded : .startOver)
        }
        return sessions.done(request, redirect: "/")
    }

    /// `POST /checkout/leave`: leave the checkout without ordering; the guitar stays as it was.
    @Sendable func leave(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Leave")
        try await context.session.acting { session in await session.build.send(.checkoutEnded) }
        return sessions.done(request, redirect: "/")
    }

    private func checkout(of session: Session) throws(UserFacingError) -> CheckoutViewModel {
        guard let checkout = session.build.currentCheckout else {
            throw UserFacingError(.conflict, "There is no checkout in progress; check out from the builder first.")
        }
        return checkout
    }
}

/// Compares secrets without leaking, through timing, how many leading characters matched.
func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
    let left = Array(lhs.utf8)
    let right = Array(rhs.utf8)
    var difference = UInt8(truncatingIfNeeded: left.count ^ right.count)
    for index in 0..<max(left.count, right.count) {
        let a = index < left.count ? left[index] : 0
        let b = index < right.count ? right[index] : 0
        difference |= a ^ b
    }
    return difference == 0 && left.count == right.count
}
