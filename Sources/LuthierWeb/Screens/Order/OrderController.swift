import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The order pages: an order as it moves through the workshop, for the session that placed it or
/// whoever has its full link. The following itself is `OrderTracker` (LuthierFeatures); this
/// controller finds the order, checks who asks, and renders its stages.
struct OrderController: Sendable {
    let sessions: SessionResponses
    let environment: LuthierEnvironment
    let renderer: PageRenderer
    let showroom: Showroom
    let hub: EventStreamHub

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/orders/:number": orderPage, "/orders/:number/events": orderEvents])
    }

    /// `GET /orders/{number}`: only for the session that ordered, or with the order's full link.
    @Sendable func orderPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let access = try await authorizedOrder(request, context: context)
        let page = OrderPage(order: access.order, cart: access.session?.shown.cart, key: access.key)
        return sessions.responses.page(renderer.render(page, template: "order"), for: request)
    }

    /// `GET /orders/{number}/events`: the order's stages as they move, for whoever may see it.
    @Sendable func orderEvents(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await EventStreamResponse.make(eventStream(request, context: context), for: request, on: context.channel)
    }

    /// The stream of the order the context's `number` names, for `GET /orders/{number}/events`
    /// and for a bundle (`GET /streams`) that follows it among others.
    func eventStream(
        _ request: Request, context: LuthierRequestContext
    ) async throws -> EventStreamConnection {
        let order = try await authorizedOrder(request, context: context).order
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        let reservation = try hub.admit(kind: .order, client: client)
        let render = renderer
        func stages(_ order: Order) -> Fragment {
            Fragment(
                target: "order-stages",
                html: render.render(cached: OrderStagesView(order: order), template: "fragments/order-stages"))
        }
        let fragments = FragmentStore(initial: [stages(order)])
        let floor = showroom.floor
        let tracker = OrderTracker(order: order, floor: { floor.outputs() }, workshop: environment.workshop)
        // Renders each stage the tracker publishes; ends with the tracker (the stream's end closes it).
        let publishing = Task {
            for await moved in tracker.orders() where moved.status != order.status {
                fragments.publish([stages(moved)])
            }
        }
        let stop: @Sendable () -> Void = {
            tracker.close()
            publishing.cancel()
            fragments.finish()
        }
        return EventStreamConnection(
            fragments: fragments,
            hub: hub,
            // A store of this connection's own: a reconnect gets its one small fragment again.
            start: .fresh,
            kind: .order,
            client: client, reservation: reservation, compressed: ResponseFactory.acceptsGzip(request),
            closed: stop, unused: stop
        )
    }

    /// An order and who asked for it, once they may see it.
    private struct OrderAccess {
        let order: Order
        let session: Session?
        /// The access key, when the request carried the right one.
        let key: String?
    }

    /// The order named in the path, if the request's session placed it or its query carries the
    /// order's key (compared in constant time); 404 otherwise, the same as for no such order.
    private func authorizedOrder(
        _ request: Request, context: LuthierRequestContext
    ) async throws(UserFacingError) -> OrderAccess {
        let notFound = UserFacingError(.notFound, "There is no such order.")
        // Judged before the order is looked up: the refusal says nothing of whether it exists.
        let key = try request.queryValue("key").map { String($0) } ?? ""
        guard let number = context.parameters.get("number"), number.utf8.count <= 32 else { throw notFound }
        let found: Order?
        do {
            found = try await environment.workshop.order(number)
        } catch {
            throw UserFacingError(.serviceUnavailable, "Orders cannot be read right now.", retryAfter: 5)
        }
        guard let order = found else { throw notFound }
        let keyMatches = constantTimeEquals(key, order.accessKey)
        let session: Session?
        do {
            session = try await context.session.existing()
        } catch {
            // With the order's key the session is not needed; without it, the session decides,
            // and one that cannot be read is a 503, not a "no such order".
            guard keyMatches else { throw error }
            session = nil
        }
        let ownSession = session.map { constantTimeEquals($0.orderKey, order.sessionKey) } ?? false
        guard ownSession || keyMatches else { throw notFound }
        return OrderAccess(order: order, session: session, key: keyMatches ? order.accessKey : nil)
    }
}
