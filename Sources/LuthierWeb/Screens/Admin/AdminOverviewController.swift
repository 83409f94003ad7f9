import Hummingbird
import LuthierFeatures

/// `/admin`: where the shop's admin lands after signing in. How many customers and screens are
/// connected now, and the way to every admin page (stock, orders, codes, analytics, the shop's
/// inspector, metrics).
struct AdminOverviewController: Sendable {
    let admin: AdminController
    /// The counts as they are now.
    let counts: @Sendable () -> AdminOverviewPage

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: ["/admin": overview])
    }

    /// `GET /admin`.
    @Sendable func overview(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        return admin.responses.page(admin.renderer.render(counts(), template: "admin"), for: request)
    }
}
