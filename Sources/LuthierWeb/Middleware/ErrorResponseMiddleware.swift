import Hummingbird
import ServerMachinery

/// Answers what the routes throw past their own handling (an address with no page, a failure no
/// controller expected) with the shop's own error page or sentence, inside the middleware that
/// adds the security headers: left to the framework, such answers would go out bare.
struct ErrorResponseMiddleware<Context: RequestContext>: RouterMiddleware {
    let responses: ResponseFactory
    /// The shop's routes, to tell a path it does not have (404) from a method a path does not take (405).
    let routes: RouteTable

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as UserFacingError {
            return responses.error(error, for: request)
        } catch let error as HTTPError where error.status == .notFound {
            let allowed = routes.allowedMethods(forPath: request.uri.path)
            guard !allowed.isEmpty, !allowed.contains(request.method) else {
                return responses.error(
                    UserFacingError(.notFound, "There is no page at this address; the shop starts at /."), for: request)
            }
            let list = allowed.map(\.rawValue).joined(separator: ", ")
            var response = responses.error(
                UserFacingError(
                    .methodNotAllowed,
                    "This address does not take \(request.method.rawValue.prefix(16)); it takes \(list)."),
                for: request)
            response.headers[.allow] = list
            return response
        } catch let error as HTTPError {
            // The framework's own refusals: their text may quote the request, so only the status is told.
            let message = "The request could not be answered: \(error.status.reasonPhrase)."
            var response = responses.error(UserFacingError(error.status, message), for: request)
            if let allow = error.headers[.allow] { response.headers[.allow] = allow }
            return response
        } catch {
            context.logger.error("Unexpected failure answering \(request.method) \(request.uri.path): \(error)")
            return responses.error(
                UserFacingError(.internalServerError, "Something went wrong; please try again."), for: request)
        }
    }
}
