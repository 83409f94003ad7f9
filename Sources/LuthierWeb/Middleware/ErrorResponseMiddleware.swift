import Hummingbird

/// Answers what the routes throw past their own handling (an address with no page, a failure no
/// controller expected) with the shop's own error page or sentence, inside the middleware that
/// adds the security headers: left to the framework, such answers would go out bare.
struct ErrorResponseMiddleware<Context: RequestContext>: RouterMiddleware {
    let responses: ResponseFactory

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        do {
            return try await next(request, context)
        } catch let error as UserFacingError {
            return responses.error(error, for: request)
        } catch let error as HTTPError {
            // The framework's own refusals: their text may quote the request, so only the status is told.
            let message =
                error.status == .notFound
                ? "There is no page at this address; the shop starts at /."
                : "The request could not be answered: \(error.status.reasonPhrase)."
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
