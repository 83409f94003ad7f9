import Hummingbird
import LuthierDomain
import LuthierFeatures

/// The builder: its page, its form posts and the session's event stream.
struct BuildController: Sendable {
    static let sessionCookie = "luthier_session"

    let registry: SessionRegistry
    let hub: EventStreamHub
    let renderer: PageRenderer
    let responses: ResponseFactory
    let forms: FormReader
    let reconnectDelayMilliseconds: Int

    var endpoints: RouteCollection<LuthierRequestContext> {
        let routes = RouteCollection(context: LuthierRequestContext.self)
        routes.get("/", use: page)
        routes.post("/build", use: change)
        routes.post("/build/reset", use: reset)
        routes.get("/events", use: events)
        return routes
    }

    /// `GET /`: the whole builder, rendered from the session's current output.
    @Sendable func page(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        let (session, isNew): (Session, Bool)
        do {
            (session, isNew) = try sessionOrNew(for: request)
        } catch {
            return responses.error(error, for: request)
        }
        let html = renderer.render(BuilderPage(output: session.build.currentOutput), template: "builder")
        var response = responses.page(html)
        if isNew { response.setCookie(cookie(for: session)) }
        return response
    }

    /// `POST /build`: any subset of shape, color, body, fretboard. All fields are validated before
    /// anything changes, and the answer is sent only after the change has been applied.
    @Sendable func change(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        do {
            let fields = try await forms.fields(of: request)
            let change: GuitarChange
            do {
                change = try GuitarChange(fields: fields)
            } catch {
                throw UserFacingError(.unprocessableContent, error.message)
            }
            let (session, isNew) = try sessionOrNew(for: request)
            await session.build.send(.change(change))
            return done(request, session: session, isNew: isNew)
        } catch let error as UserFacingError {
            return responses.error(error, for: request)
        }
    }

    /// `POST /build/reset`: "Start over".
    @Sendable func reset(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        do {
            let fields = try await forms.fields(of: request)
            if let field = fields.first {
                throw UserFacingError(.unprocessableContent, "Start over takes no fields; '\(field.name)' was sent.")
            }
            let (session, isNew) = try sessionOrNew(for: request)
            await session.build.send(.startOver)
            return done(request, session: session, isNew: isNew)
        } catch let error as UserFacingError {
            return responses.error(error, for: request)
        }
    }

    /// `GET /events`: the session's event stream.
    @Sendable func events(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard let session = registry.session(forCookie: request.cookies[Self.sessionCookie]?.value) else {
            return responses.error(
                UserFacingError(.forbidden, "No live session: open / first; the event stream follows that session."),
                for: request
            )
        }
        let connection = EventStreamConnection(
            session: session,
            hub: hub,
            reconnectDelayMilliseconds: reconnectDelayMilliseconds,
            peerClosed: await PeerCloseHandler.peerClosed(on: context.channel)
        )
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/event-stream; charset=utf-8",
                .cacheControl: "no-cache, no-transform",
                .xAccelBuffering: "no",
            ],
            body: ResponseBody { writer in
                try await connection.run(writer: &writer)
            }
        )
    }

    /// A script's post gets "no content"; a plain form post is redirected back to the page.
    private func done(_ request: Request, session: Session, isNew: Bool) -> Response {
        var response =
            request.headers[.xRequestedWith] != nil ? Response(status: .noContent) : responses.seeOther("/")
        if isNew { response.setCookie(cookie(for: session)) }
        return response
    }

    private func sessionOrNew(for request: Request) throws(UserFacingError) -> (Session, Bool) {
        if let session = registry.session(forCookie: request.cookies[Self.sessionCookie]?.value) {
            return (session, false)
        }
        guard let session = registry.createSession() else {
            throw UserFacingError(
                .serviceUnavailable,
                "The shop is full right now; please try again in a minute.",
                retryAfter: 60
            )
        }
        return (session, true)
    }

    private func cookie(for session: Session) -> Cookie {
        Cookie(name: Self.sessionCookie, value: session.id.rawValue, path: "/", httpOnly: true, sameSite: .lax)
    }
}

/// What the builder template shows.
struct BuilderPage: Sendable {
    let output: BuildOutput
}
