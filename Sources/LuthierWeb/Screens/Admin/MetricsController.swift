import Hummingbird
import NIOCore

/// `GET /metrics`: the server's metrics for Prometheus, on the shop's own port, for the admin
/// alone (`Authorization: Bearer <admin token>`, or a signed-in admin's browser).
///
/// Why the main port and the admin token rather than a second, loopback-only port: Prometheus
/// usually scrapes from another machine, which a loopback port would shut out, and an open port
/// on the LAN would show every visitor the shop's traffic. A bearer token is what Prometheus's
/// `authorization` setting sends. Without an admin token the page does not exist (`404`).
struct MetricsController {
    let metrics: ShopMetrics
    let admin: AdminController
    /// What the server holds right now, read at each scrape.
    let readings: @Sendable () -> ShopMetrics.Readings

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/metrics": scrape])
    }

    @Sendable func scrape(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: metrics.exposition(readings())))
    }
}
