import Hummingbird
import ServerMachinery

/// How the answers of every controller treat the session: the page of a session (or of the blank
/// one), the answer of an accepted post, the new id after an order, and the cookie.
struct SessionResponses: Sendable {
    static let cookieName = "luthier_session"

    let registry: SessionRegistry
    let responses: ResponseFactory
    /// How long the browser keeps the cookie: as long as the store keeps the session.
    let cookieMaxAge: Int
    /// Tells whether the browser came over TLS, for the cookie's `Secure`.
    let origin: RequestOrigin

    /// A full page rendered for the request's session.
    ///
    /// A visitor without a session sees the blank session's page and gets a cookie with a fresh
    /// id, but no session: that costs a render from the cache and nothing kept. Its first post or
    /// stream makes the session under that id. So does a browser whose cookie names an id an
    /// order replaced: that id is refused for posts and streams, and must not stay in its jar.
    func page(
        _ request: Request, _ context: LuthierRequestContext, _ render: (Session) -> RenderedPage
    ) async throws -> Response {
        guard let session = try await context.session.existing() else {
            var response = responses.page(render(registry.blank), version: nil, for: request)
            let sent = context.session.cookie.flatMap(SessionID.init(cookieValue:))
            if sent.map(registry.issued) != true || context.session.cookieWasReplaced {
                response.setCookie(cookie(value: registry.issueID().cookieValue, request: request))
            }
            return response
        }
        // Read before rendering: the page shows at least this version, so a stream resuming
        // from it can only send a change again, never miss one.
        let version = session.fragments.version
        return responses.page(render(session), version: version, for: request)
    }

    /// As `page(_:_:_:)`, for a page drawn from nothing but the session's builder and cart
    /// outputs: a reload while neither has changed answers with the page drawn last
    /// (`Session.page(drawnFromBuildAndCart:draw:)`).
    func page(
        _ request: Request, _ context: LuthierRequestContext, drawnFromBuildAndCart template: String,
        _ render: (Session) -> RenderedPage
    ) async throws -> Response {
        try await page(request, context) { session in
            session.page(drawnFromBuildAndCart: template, draw: render)
        }
    }

    /// Gives the session a new id (after an order); the answer of `request`, the order that gave
    /// it, then carries it (and no other answer does). A failure to store the new id is logged and
    /// the old id kept: the order stands either way.
    func rotate(_ session: Session, once occasion: String, for request: RequestSession) async {
        do {
            if try await registry.rotate(session, once: occasion) != nil { request.noteNewID() }
        } catch {
            registry.logger.error("A session's id could not be replaced after an order")
        }
    }

    /// The answer of an accepted post: "no content" for a script, a redirect for a plain form
    /// post (post, redirect, get).
    func done(_ request: Request, redirect location: String) -> Response {
        request.headers[.xRequestedWith] != nil ? Response(status: .noContent) : responses.seeOther(location)
    }

    /// Kept by the browser across restarts, for as long as the store keeps the session; never
    /// readable by scripts, and not sent on cross-site posts; over TLS (behind a trusted proxy),
    /// never sent over plain HTTP either.
    func cookie(value: String, request: Request) -> Cookie {
        Cookie(
            name: Self.cookieName, value: value, maxAge: cookieMaxAge, path: "/",
            secure: origin.isSecure(request), httpOnly: true, sameSite: .lax)
    }
}
