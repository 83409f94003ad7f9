import Hummingbird

/// Puts the request's session (`RequestSession`, resolved only when a handler asks) into the
/// context, and after the handler applies the one save policy: a session a post acted on is
/// saved before the answer goes out, and the answer carries the cookie when the session is new or
/// the request came with an id the session no longer has. A handler that throws leaves nothing
/// behind: a session made for it is dropped, and nothing is saved (a refused action changed
/// nothing). The error itself is answered by `ErrorResponseMiddleware`, outside this one.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = LuthierRequestContext

    let registry: SessionRegistry
    let cookies: SessionResponses

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var context = context
        let cookie = request.headers.cookieValue(named: SessionResponses.cookieName)
        let session = RequestSession(registry: registry, cookie: cookie)
        context.session = session
        var response: Response
        do {
            response = try await next(request, context)
        } catch {
            session.discardIfNew()
            throw error
        }
        let outcome = session.outcome
        guard let resolved = outcome.session else { return response }
        if outcome.acted, !outcome.saved {
            do {
                try await resolved.save()
            } catch {
                session.discardIfNew()
                throw RequestSession.refusal(error as? Session.SaveFailure ?? .unavailable(error))
            }
        }
        if (outcome.acted && outcome.isNew) || session.cookie.map({ $0 != resolved.id.cookieValue }) == true {
            response.setCookie(cookies.cookie(value: resolved.id.cookieValue, request: request))
        }
        return response
    }
}
