import Hummingbird
import LuthierDomain
import LuthierFeatures
import ServerMachinery

/// The builder: its page, its form posts and the session's event stream.
struct BuildController: Sendable {
    let sessions: SessionResponses
    let hub: EventStreamHub
    let renderer: PageRenderer
    let forms: FormReader

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/": page, "/events": events], post: ["/build": change, "/build/reset": reset])
    }

    /// `GET /`: the whole builder, rendered from the session's shown output.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await sessions.page(request, context, drawnFromBuildAndCart: "builder") { session in
            let shown = session.shown
            let page = BuilderPage(cart: shown.cart, output: shown.build)
            return renderer.page(template: "builder", key: page.key) { page }
        }
    }

    /// `POST /build`: any subset of shape, color, body, fretboard. All fields are validated before
    /// a session is looked up or made (a bad post creates nothing), and the answer is sent only
    /// after the change has been applied and saved (`SessionMiddleware`).
    @Sendable func change(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let fields = try await forms.fields(of: request)
        let change: GuitarChange
        do {
            change = try GuitarChange(fields: fields)
        } catch {
            throw UserFacingError(.unprocessableContent, error.message)
        }
        try await context.session.acting { session in await session.build.send(.change(change)) }
        return sessions.done(request, redirect: "/")
    }

    /// `POST /build/reset`: "Start over".
    @Sendable func reset(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await forms.requireNoFields(request, action: "Start over")
        try await context.session.acting { session in await session.build.send(.startOver) }
        return sessions.done(request, redirect: "/")
    }

    /// `GET /events`: the session's event stream.
    @Sendable func events(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        try await EventStreamResponse.make(eventStream(request, context: context), for: request, on: context.channel)
    }

    /// The session's event stream, for `GET /events` and for a bundle (`GET /streams`) that
    /// follows it among others.
    func eventStream(
        _ request: Request, context: LuthierRequestContext
    ) async throws -> EventStreamConnection {
        // A stream is a session's first act: an issued id gets its session now.
        guard let session = try await context.session.existing(adopting: true) else {
            throw UserFacingError(.forbidden, "No live session: open / first; the event stream follows that session.")
        }
        let client = sessions.origin.clientAddress(of: request, channel: context.channel)
        let reservation = try hub.admit(client: client, session: session.streamCapKey)
        return EventStreamConnection(
            session: session,
            hub: hub,
            start: .of(request, in: session.fragments),
            client: client, reservation: reservation, compressed: ResponseFactory.acceptsGzip(request)
        )
    }
}
