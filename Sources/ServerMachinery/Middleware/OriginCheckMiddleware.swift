import Hummingbird

/// Answers only requests to the shop's own names, and takes posts only from its own pages.
///
/// - **The host allow-list** (`--allowed-host`, by default the shop's own names and addresses):
///   against DNS rebinding, where a page on an attacker's name, re-pointed at the shop's address,
///   would otherwise be served the shop's pages as its own origin.
/// - **Same origin for state-changing requests** (CSRF): browsers send `Sec-Fetch-Site` on every
///   request and `Origin` on every cross-origin or POST request, and a page cannot forge either.
///   Requests with neither (curl, tests, very old browsers) pass: they cannot carry a victim's
///   cookie from another site's page. `Origin` must match the request's own scheme, host and port
///   exactly: `https://shop` is another origin than `http://shop`.
package struct OriginCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    package let origin: RequestOrigin
    package let respond: @Sendable (UserFacingError, Request) -> Response

    package init(origin: RequestOrigin, respond: @escaping @Sendable (UserFacingError, Request) -> Response) {
        self.origin = origin
        self.respond = respond
    }

    package func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws
        -> Response
    {
        if let refusal = refusal(of: request) { return respond(refusal, request) }
        return try await next(request, context)
    }

    /// Why `request` is refused, or nil when it may go on.
    private func refusal(of request: Request) -> UserFacingError? {
        guard origin.allows(request) else {
            let asked = String((request.head.authority ?? "").prefix(64))
            return UserFacingError(
                .badRequest,
                "This shop does not answer to the host name '\(asked)'; open it at one of its own addresses "
                    + "(the operator lists them with --allowed-host).")
        }
        switch request.method {
        case .post, .put, .patch, .delete: break
        default: return nil
        }
        if let site = request.headers[.secFetchSite], site != "same-origin", site != "none" { return Self.refusal }
        if let sent = request.headers[.origin], sent.lowercased() != origin.expectedOrigin(of: request) {
            return Self.refusal
        }
        return nil
    }

    /// The refusal of a post from another site.
    package static var refusal: UserFacingError {
        UserFacingError(.forbidden, "Posts from other sites are refused; use the Luthier page itself.")
    }
}
