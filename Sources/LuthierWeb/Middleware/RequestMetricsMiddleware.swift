import Hummingbird
import LuthierFeatures
import ServerMachinery

/// Counts every request the router answers in ``ShopMetrics``: its route's pattern, method and
/// status, and the time to its answer's head, on the injected clock.
///
/// Outermost with the request log, so that it counts the answers the error middleware makes of
/// refusals. Static files answered before the router (``StaticAssetChannelHandler``) are not
/// counted here.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ShopMetrics
    let clock: any Clock<Duration>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let elapsed = stopwatch(on: clock)
        let route = context.endpointPath ?? "(no route)"
        let method = request.method
        do {
            let response = try await next(request, context)
            metrics.requestAnswered(route: route, method: method, status: response.status.code, after: elapsed())
            return response
        } catch {
            let status = (error as? any HTTPResponseError)?.status.code ?? 500
            metrics.requestAnswered(route: route, method: method, status: status, after: elapsed())
            throw error
        }
    }
}
