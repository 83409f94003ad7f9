import Hummingbird

/// Puts the request's session (`RequestSession`, resolved only when a handler asks) into the
/// context, and after the handler applies the one save policy: a session a post acted on is
/// saved before the answer goes out, and the answer carries the cookie when the session is new or
/// the request's own order gave it a new id (and no other answer: one to a request with the old id
/// would hand the new one to whoever else holds the old). A handler that throws leaves nothing
/// behind: a session made for it is dropped, and nothing is saved (a refused action changed
/// nothing). The error itself is answered by `ErrorResponseMiddleware`, outside this one.
///
/// A request the shop failed (a 5xx, a save that kept losing; `Incident.failure`) is kept in
/// `incidents` with the steps its session's flight recorder holds.
struct SessionMiddleware: RouterMiddleware {
    typealias Context = LuthierRequestContext

    let registry: SessionRegistry
    let cookies: SessionResponses
    let incidents: IncidentLog

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
            keepIncident(Incident.failure(answering: error, request: request, route: context.endpointPath), of: session)
            session.discardIfNew()
            throw error
        }
        let outcome = session.outcome
        guard let resolved = outcome.session else { return response }
        if outcome.acted, !outcome.saved {
            do {
                try await resolved.save()
            } catch {
                let refusal = RequestSession.refusal(error as? Session.SaveFailure ?? .unavailable(error))
                keepIncident(
                    Incident.failure(answering: refusal, request: request, route: context.endpointPath), of: session)
                session.discardIfNew()
                throw refusal
            }
        }
        keepIncident(Incident.failure(answered: response, request: request, route: context.endpointPath), of: session)
        if (outcome.acted && outcome.isNew) || session.gaveNewID {
            response.setCookie(cookies.cookie(value: resolved.id.cookieValue, request: request))
        }
        return response
    }

    /// Keeps `failure`, if any, with the steps of the session the request resolved (a request
    /// with no session has no steps to keep).
    private func keepIncident(_ failure: Incident.Failure?, of session: RequestSession) {
        guard let failure, let recorder = session.outcome.session?.shop.taps else { return }
        incidents.keep(failure, recordedBy: recorder, codes: registry.discounts.current)
    }
}
