import Hummingbird

/// Answers only requests for a host name the shop has (`--allowed-host`, by default its own
/// names and addresses): against DNS rebinding, where a page on an attacker's name, re-pointed at
/// the shop's address, would otherwise be served the shop's pages as its own origin.
package struct HostAllowListMiddleware<Context: RequestContext>: RouterMiddleware {
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
        guard origin.allows(request) else {
            let asked = String((request.head.authority ?? "").prefix(64))
            return respond(
                UserFacingError(
                    .badRequest,
                    "This shop does not answer to the host name '\(asked)'; open it at one of its own addresses "
                        + "(the operator lists them with --allowed-host)."),
                request)
        }
        return try await next(request, context)
    }
}
