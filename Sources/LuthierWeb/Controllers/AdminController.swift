import Hummingbird
import LuthierFeatures

/// The shop's own view of cart analytics, behind the admin token from the configuration.
struct AdminController: Sendable {
    /// The configured token; without one the admin pages do not exist (404).
    let token: String?
    let analytics: AnalyticsClient
    let renderer: PageRenderer
    let responses: ResponseFactory

    var endpoints: RouteCollection<LuthierRequestContext> {
        let routes = RouteCollection(context: LuthierRequestContext.self)
        routes.get("/admin/analytics", use: analyticsPage)
        return routes
    }

    /// `GET /admin/analytics` with `Authorization: Bearer <token>` (or `?token=` for a browser):
    /// counts per cart action and the most-added configurations.
    @Sendable func analyticsPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        guard let token else {
            return responses.error(UserFacingError(.notFound, "There is no such page."), for: request)
        }
        let bearer = request.headers[.authorization].flatMap { value -> String? in
            value.hasPrefix("Bearer ") ? String(value.dropFirst("Bearer ".count)) : nil
        }
        let presented = bearer ?? request.uri.queryParameters.get("token") ?? ""
        guard constantTimeEquals(presented, token) else {
            var response = responses.error(
                UserFacingError(.unauthorized, "This page needs the admin token (Authorization: Bearer …)."),
                for: request)
            response.headers[.wwwAuthenticate] = #"Bearer realm="luthier-admin""#
            return response
        }
        let report: AnalyticsReport
        do {
            report = try await analytics.report(10)
        } catch {
            return responses.error(
                UserFacingError(.serviceUnavailable, "Analytics cannot be read right now.", retryAfter: 5),
                for: request)
        }
        return responses.page(renderer.render(AnalyticsPage(report: report), template: "admin-analytics"))
    }
}

/// What the analytics template shows.
struct AnalyticsPage: Sendable {
    let totalEvents: Int
    let actions: [AnalyticsReport.ActionCount]
    let mostAdded: [AnalyticsReport.ConfigurationCount]
    let isEmpty: Bool

    init(report: AnalyticsReport) {
        totalEvents = report.totalEvents
        actions = report.actions
        mostAdded = report.mostAdded
        isEmpty = report.totalEvents == 0
    }
}
