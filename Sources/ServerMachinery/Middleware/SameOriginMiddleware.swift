import Hummingbird

/// Refuses state-changing requests that a browser says come from another site (CSRF).
///
/// Browsers send `Sec-Fetch-Site` on every request and `Origin` on every cross-origin or POST
/// request, and a page cannot forge either. Requests with neither (curl, tests, very old browsers)
/// pass: they cannot carry a victim's cookie from another site's page. `Origin` must match the
/// request's own scheme, host and port exactly: `https://shop` is another origin than `http://shop`.
package struct SameOriginMiddleware<Context: RequestContext>: RouterMiddleware {
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
        guard [.post, .put, .patch, .delete].contains(request.method) else {
            return try await next(request, context)
        }
        if let site = request.headers[.secFetchSite], site != "same-origin", site != "none" {
            return respond(Self.refusal, request)
        }
        if let sent = request.headers[.origin] {
            guard sent.lowercased() == origin.expectedOrigin(of: request) else {
                return respond(Self.refusal, request)
            }
        }
        return try await next(request, context)
    }

    package static var refusal: UserFacingError {
        UserFacingError(.forbidden, "Posts from other sites are refused; use the Luthier page itself.")
    }
}
