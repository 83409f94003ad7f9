import Foundation
import Hummingbird
import LuthierFeatures
import NIOCore
import ServerMachinery

/// The requests the shop failed, for its admin (`IncidentLog`): each with the steps its session
/// took before it, to read, to download as a trace (`luthier replay` reads it) or as a Swift test,
/// and replayed here through the reducers to say whether they still lead where they led.
struct AdminIncidentsController: Sendable {
    let admin: AdminController
    let incidents: IncidentLog

    var endpoints: RouteCollection<LuthierRequestContext> {
        RouteCollection(get: [
            "/admin/incidents": list, "/admin/incidents/:id": incidentPage, "/admin/incidents/:id/trace.json": trace,
            "/admin/incidents/:id/test.swift": test,
        ])
    }

    /// `GET /admin/incidents`: the incidents kept, newest first.
    @Sendable func list(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let page = IncidentsPage(incidents: incidents.incidents, limits: incidents.limits)
        return admin.responses.page(admin.renderer.render(page, template: "admin-incidents"), for: request)
    }

    /// `GET /admin/incidents/{id}`: the failure, its steps, and their replay.
    @Sendable func incidentPage(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let incident = try incident(in: context)
        let trace = try SessionTrace(json: incident.trace)
        let verdict: String
        do {
            verdict = try SessionReplay.live.replay(trace).summary
        } catch {
            verdict = error.description
        }
        let page = IncidentPage(incident: incident, trace: trace, replay: verdict)
        return admin.responses.page(admin.renderer.render(page, template: "admin-incident"), for: request)
    }

    /// `GET /admin/incidents/{id}/trace.json`: the session's trace, as `/inspect/trace` writes one.
    @Sendable func trace(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let incident = try incident(in: context)
        return admin.responses.text(
            ByteBuffer(data: incident.trace), type: "application/json",
            headers: [.contentDisposition: "attachment; filename=\"incident-\(incident.id).json\""], for: request)
    }

    /// `GET /admin/incidents/{id}/test.swift`: the trace as a Swift Testing test
    /// (`luthier replay --emit-test`), for the features' test target.
    @Sendable func test(_ request: Request, context: LuthierRequestContext) async throws -> Response {
        if let refusal = try admin.refusal(request, context: context) { return refusal }
        let incident = try incident(in: context)
        let file = "incident-\(incident.id).json"
        let source = try ReplayTestEmitter.source(of: SessionTrace(json: incident.trace), file: file)
        return admin.responses.text(
            ByteBuffer(string: source), type: "text/x-swift; charset=utf-8",
            headers: [.contentDisposition: "attachment; filename=\"Incident\(incident.id)Tests.swift\""],
            for: request)
    }

    private func incident(in context: LuthierRequestContext) throws(UserFacingError) -> Incident {
        let id = context.parameters.get("id") ?? ""
        guard let incident = incidents.incident(id) else {
            throw UserFacingError(
                .notFound,
                "There is no incident \(id.prefix(16)) now: incidents are kept for "
                    + "\(IncidentsPage.describe(incidents.limits.retention)); the list is at /admin/incidents.")
        }
        return incident
    }
}
