import Hummingbird
import Logging
import LuthierFeatures
import ServerMachinery

/// The shop owner's pages, behind the admin token from the configuration.
///
/// A browser signs in with a form post and gets a short-lived `HttpOnly; SameSite=Strict` cookie
/// scoped to `/admin` (holding a sign-in id, not the token); a script sends
/// `Authorization: Bearer`. The token never travels in an address, where it would be kept in
/// history, proxy logs and `Referer` headers: `?token=` is refused. Failed attempts are limited
/// per client address.
struct AdminController: Sendable {
    static let cookieName = "luthier_admin"

    /// The configured token; without one the admin pages do not exist (404).
    let token: String?
    let analytics: AnalyticsClient
    let renderer: PageRenderer
    let responses: ResponseFactory
    let forms: FormReader
    let signIns: AdminSessions
    /// Failed attempts (a wrong token in the form or a bearer header) per client address.
    let failures: RateLimiter
    let origin: RequestOrigin
    /// Where every admin action is logged: what was done, never the token or the sign-in's id.
    let logger: Logger

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(
            get: ["/admin/analytics": analyticsPage, "/admin/sign-in": signInPage],
            post: ["/admin/sign-in": signIn, "/admin/sign-out": signOut])
    }

    /// `GET /admin/sign-in`: the form.
    @Sendable func signInPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard token != nil else { throw Self.noSuchPage }
        return responses.page(renderer.render(SignInPage(message: nil), template: "admin-sign-in"), for: request)
    }

    /// `POST /admin/sign-in` with `token`: the right token signs this browser in for a while.
    @Sendable func signIn(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard let token else { throw Self.noSuchPage }
        let client = origin.clientAddress(of: request, channel: context.channel)
        try refuseIfLockedOut(client)
        let presented = try await forms.singleField("token", of: request)
        guard constantTimeEquals(presented, token) else {
            _ = failures.take(client)
            logger.warning(
                "Admin sign-in refused: not the admin token",
                metadata: ["client": "\(origin.peerAddress(of: request, channel: context.channel))"])
            return responses.page(
                renderer.render(SignInPage(message: "That is not the admin token."), template: "admin-sign-in"),
                status: .unauthorized, for: request)
        }
        var response = responses.seeOther("/admin")
        response.setCookie(cookie(value: signIns.signIn(), maxAge: Int(signIns.lifetime.components.seconds), request))
        logger.notice("Admin signed in", metadata: ["minutes": "\(signIns.lifetime.components.seconds / 60)"])
        return response
    }

    /// `POST /admin/sign-out`: ends this browser's sign-in.
    @Sendable func signOut(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard token != nil else { throw Self.noSuchPage }
        signIns.signOut(request.headers.cookieValue(named: Self.cookieName))
        logger.notice("Admin signed out")
        var response = responses.seeOther("/admin/sign-in")
        response.setCookie(cookie(value: "", maxAge: 0, request))
        return response
    }

    /// `GET /admin/analytics`, signed in or with `Authorization: Bearer <token>`: counts per cart
    /// action and the most-added configurations.
    @Sendable func analyticsPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try refusal(request, context: context) { return refusal }
        let report: AnalyticsReport
        do {
            report = try await analytics.report(10)
        } catch {
            throw UserFacingError(.serviceUnavailable, "Analytics cannot be read right now.", retryAfter: 5)
        }
        return responses.page(renderer.render(AnalyticsPage(report: report), template: "admin-analytics"), for: request)
    }

    /// Nil when the request is the admin's (signed in, or with `Authorization: Bearer <token>`);
    /// otherwise the answer to give it: the sign-in form for a browser, `401` for a script. Throws
    /// `404` when no token is configured, `400` for a token in the address, `429` after too many
    /// failures from the address.
    func refusal(_ request: Request, context: LuthierRequestContext) throws(UserFacingError) -> Response? {
        guard let token else { throw Self.noSuchPage }
        if request.uri.queryParameters.get("token") != nil {
            throw UserFacingError(
                .badRequest,
                "The admin token is not taken in the address, where history and logs would keep it; "
                    + "sign in at /admin/sign-in, or send Authorization: Bearer.")
        }
        let client = origin.clientAddress(of: request, channel: context.channel)
        guard !signIns.isSignedIn(request.headers.cookieValue(named: Self.cookieName)) else {
            return nil
        }
        try refuseIfLockedOut(client)
        let bearer = request.headers[.authorization].flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
        }
        guard let bearer, constantTimeEquals(bearer, token) else {
            if bearer != nil {
                _ = failures.take(client)
                logger.warning(
                    "Admin request refused: not the admin token",
                    metadata: ["client": "\(origin.peerAddress(of: request, channel: context.channel))"])
            }
            return unauthorized(request)
        }
        return nil
    }

    /// A browser is sent to the sign-in form; a script is told how to authenticate.
    private func unauthorized(_ request: Request) -> Response {
        if ResponseFactory.wantsHTML(request) { return responses.seeOther("/admin/sign-in") }
        var response = responses.error(
            UserFacingError(
                .unauthorized, "This page needs the admin: sign in at /admin/sign-in, or send Authorization: Bearer."),
            for: request)
        response.headers[.wwwAuthenticate] = #"Bearer realm="luthier-admin""#
        return response
    }

    private func refuseIfLockedOut(_ client: String) throws(UserFacingError) {
        guard let wait = failures.wait(for: client) else { return }
        let seconds = wait.retryAfterSeconds
        throw UserFacingError(
            .tooManyRequests,
            "Too many failed admin sign-ins from this address: at most \(failures.rule.limit) in "
                + "\(failures.rule.window.components.seconds / 60) minutes. Please try again in \((seconds + 59) / 60) minutes.",
            retryAfter: seconds)
    }

    /// The admin cookie: only for `/admin`, never readable by scripts, never sent from another
    /// site, and over TLS only when the shop is behind a trusted TLS proxy.
    private func cookie(value: String, maxAge: Int, _ request: Request) -> Cookie {
        Cookie(
            name: Self.cookieName, value: value, maxAge: maxAge, path: "/admin", secure: origin.isSecure(request),
            httpOnly: true, sameSite: .strict)
    }

    /// Runs a read for an admin page; a store that cannot answer is a `503` naming `what`.
    static func reading<Value>(_ what: String, _ read: () async throws -> Value) async throws(UserFacingError) -> Value
    {
        do {
            return try await read()
        } catch {
            throw UserFacingError(.serviceUnavailable, "\(what) cannot be read right now.", retryAfter: 5)
        }
    }

    static var noSuchPage: UserFacingError {
        UserFacingError(.notFound, "There is no such page.")
    }
}
