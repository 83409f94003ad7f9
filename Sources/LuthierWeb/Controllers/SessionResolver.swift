import Hummingbird

/// Finds (or starts) the session of a request and shapes the answer of a form post, for every
/// controller alike.
struct SessionResolver: Sendable {
    static let cookieName = "luthier_session"

    let registry: SessionRegistry
    let responses: ResponseFactory
    /// How long the browser keeps the cookie: as long as the store keeps the session.
    let cookieMaxAge: Int
    /// Tells whether the browser came over TLS, for the cookie's `Secure`.
    let origin: RequestOrigin

    /// The session the cookie names, if the server issued it (restored from the store if need be).
    ///
    /// - Parameter adopting: whether an id the server issued but whose session never acted gets
    ///   its session now (a post, a stream: the session's first act). A page does not adopt.
    func existing(_ request: Request, adopting: Bool = false) async throws(UserFacingError) -> Session? {
        do {
            return try await registry.session(forCookie: request.cookies[Self.cookieName]?.value, adopting: adopting)
        } catch {
            throw Self.refusal(error)
        }
    }

    /// The session, or a new one when the cookie names none (a 503 past the cap).
    func sessionOrNew(for request: Request) async throws(UserFacingError) -> (Session, isNew: Bool) {
        if let session = try await existing(request, adopting: true) {
            return (session, false)
        }
        do {
            return (try registry.createSession(), true)
        } catch {
            throw Self.refusal(error)
        }
    }

    private static func refusal(_ failure: SessionRegistry.Failure) -> UserFacingError {
        switch failure {
        case .full:
            UserFacingError(
                .serviceUnavailable, "The shop is full right now; please try again in a minute.", retryAfter: 60)
        case .storeUnavailable:
            UserFacingError(
                .serviceUnavailable, "Your session cannot be read right now; please try again shortly.", retryAfter: 5)
        }
    }

    /// Runs a form post's work in the request's session, turning a refusal into its response,
    /// saving the session before answering (what the server says yes to is stored), and setting
    /// the cookie when the session is new.
    func handle(_ request: Request, _ work: (Session) async throws -> Response) async -> Response {
        do {
            let (session, isNew) = try await sessionOrNew(for: request)
            var response = try await work(session)
            do {
                try await session.save()
            } catch {
                throw UserFacingError(
                    .serviceUnavailable, "Your change could not be saved; please try again.", retryAfter: 5)
            }
            if isNew || carriesOldID(request, session) { response.setCookie(cookie(for: session, request: request)) }
            return response
        } catch let error as UserFacingError {
            return responses.error(error, for: request)
        } catch {
            return responses.error(
                UserFacingError(.internalServerError, "Something went wrong; please try again."), for: request)
        }
    }

    /// A full page rendered for the request's session (a new one if need be, with its cookie).
    ///
    /// A visitor without a session sees the blank session's page and gets a cookie with a fresh
    /// id, but no session: that costs a render from the cache and nothing kept. Its first post or
    /// stream makes the session under that id.
    func page(_ request: Request, _ render: (Session) -> ByteBuffer) async -> Response {
        do {
            guard let session = try await existing(request) else {
                var response = responses.page(render(registry.blank))
                let sent = request.cookies[Self.cookieName].flatMap { SessionID(rawValue: $0.value) }
                if sent.map(registry.issued) != true {
                    response.setCookie(cookie(value: registry.issueID().rawValue, request: request))
                }
                return response
            }
            // Read before rendering: the page shows at least this version, so a stream resuming
            // from it can only send a change again, never miss one.
            let version = session.fragments.version
            var response = responses.page(render(session), version: version)
            if carriesOldID(request, session) { response.setCookie(cookie(for: session, request: request)) }
            return response
        } catch {
            return responses.error(error, for: request)
        }
    }

    /// Gives the session a new id (after an order); the answer then carries it, as every answer
    /// to a request with a replaced id does. A failure to store the new id is logged and the old
    /// id kept: the order stands either way.
    func rotate(_ session: Session, once occasion: String) async {
        do {
            try await registry.rotate(session, once: occasion)
        } catch {
            registry.logger.error("A session's id could not be replaced after an order")
        }
    }

    /// Whether the request came with an id its session no longer has (replaced after an order,
    /// still in its grace): its answer carries the current one.
    private func carriesOldID(_ request: Request, _ session: Session) -> Bool {
        request.cookies[Self.cookieName].map { $0.value != session.id.rawValue } ?? false
    }

    /// A script's post gets "no content"; a plain form post is redirected (post, redirect, get).
    func done(_ request: Request, redirect location: String) -> Response {
        request.headers[.xRequestedWith] != nil ? Response(status: .noContent) : responses.seeOther(location)
    }

    /// Kept by the browser across restarts, for as long as the store keeps the session; never
    /// readable by scripts, and not sent on cross-site posts; over TLS (behind a trusted proxy),
    /// never sent over plain HTTP either.
    func cookie(for session: Session, request: Request) -> Cookie {
        cookie(value: session.id.rawValue, request: request)
    }

    private func cookie(value: String, request: Request) -> Cookie {
        Cookie(
            name: Self.cookieName, value: value, maxAge: cookieMaxAge, path: "/",
            secure: origin.isSecure(request), httpOnly: true, sameSite: .lax)
    }
}
