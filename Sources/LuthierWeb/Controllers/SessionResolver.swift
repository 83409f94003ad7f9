import Hummingbird

/// Finds (or starts) the session of a request and shapes the answer of a form post, for every
/// controller alike.
struct SessionResolver: Sendable {
    static let cookieName = "luthier_session"

    let registry: SessionRegistry
    let responses: ResponseFactory

    /// The live session the cookie names, if the server issued it.
    func existing(_ request: Request) -> Session? {
        registry.session(forCookie: request.cookies[Self.cookieName]?.value)
    }

    /// The session, or a new one when the cookie names none (a 503 past the cap).
    func sessionOrNew(for request: Request) throws(UserFacingError) -> (Session, isNew: Bool) {
        if let session = existing(request) {
            return (session, false)
        }
        guard let session = registry.createSession() else {
            throw UserFacingError(
                .serviceUnavailable, "The shop is full right now; please try again in a minute.", retryAfter: 60)
        }
        return (session, true)
    }

    /// Runs a form post's work in the request's session, turning a refusal into its response and
    /// setting the cookie when the session is new.
    func handle(_ request: Request, _ work: (Session) async throws -> Response) async -> Response {
        do {
            let (session, isNew) = try sessionOrNew(for: request)
            var response = try await work(session)
            if isNew { response.setCookie(cookie(for: session)) }
            return response
        } catch let error as UserFacingError {
            return responses.error(error, for: request)
        } catch {
            return responses.error(
                UserFacingError(.internalServerError, "Something went wrong; please try again."), for: request)
        }
    }

    /// A script's post gets "no content"; a plain form post is redirected (post, redirect, get).
    func done(_ request: Request, redirect location: String) -> Response {
        request.headers[.xRequestedWith] != nil ? Response(status: .noContent) : responses.seeOther(location)
    }

    func cookie(for session: Session) -> Cookie {
        Cookie(name: Self.cookieName, value: session.id.rawValue, path: "/", httpOnly: true, sameSite: .lax)
    }
}
