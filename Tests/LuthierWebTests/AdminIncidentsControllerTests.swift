import Foundation
import LuthierDomain
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

/// The flight recorder over HTTP: a request the shop fails is kept with its session's last steps,
/// which the admin, and only the admin, lists, downloads and replays.
@Suite("AdminIncidentsController over HTTP")
struct AdminIncidentsControllerTests {
    static let admin = [(name: "Authorization", value: "Bearer \(AdminControllerTests.token)")]

    @Test("a change whose save fails is kept with the session's last steps; the admin reads, downloads and replays it")
    func aFailedSaveIsAnIncident() async throws {
        let sessions = MemorySessionStore()
        try await TestApp.run(
            configure: AdminControllerTests.configure, environment: { .webTest(clock: $0, sessions: sessions) }
        ) { app in
            let cookie = try await app.newSession()
            // Nobody watches this session: its steps are kept by its flight recorder alone.
            #expect(try await app.scriptPost(form: "body=koa", cookie: cookie).status == 204)
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            #expect(app.services.incidents.incidents.isEmpty)

            sessions.fail()
            let refused = try await app.scriptPost(form: "shape=longV", cookie: cookie)
            #expect(refused.status == 503)
            sessions.fail(false)

            let incident = try #require(app.services.incidents.incidents.first)
            #expect(app.services.incidents.incidents.count == 1)
            #expect(
                incident.failure
                    == .init(
                        method: "POST", route: "/build", status: 503,
                        sentence: "Your change could not be saved; please try again."))

            // Counted for monitoring, as every failure is, kept or repeated.
            let metrics = MetricsControllerTests.samples(try await app.get("/metrics", headers: Self.admin).text)
            #expect(metrics["luthier_incidents_total"] == 1)

            let list = try await app.get("/admin/incidents", headers: Self.admin)
            #expect(list.status == 200)
            #expect(list.text.contains("href=\"/admin/incidents/\(incident.id)\""), "\(list.text)")
            #expect(list.text.contains("POST /build"))

            let download = try await app.get("/admin/incidents/\(incident.id)/trace.json", headers: Self.admin)
            #expect(download.status == 200)
            #expect(download.header("Content-Disposition")?.contains("attachment") == true)
            let trace = try SessionTrace(json: Data(download.body))
            // The last is the step the failed save undid.
            #expect(
                trace.steps.map { "\($0.action)" }
                    == ["change(body: Koa)", "change(color: Sky)", "change(shape: Long V)"])
            #expect(!download.text.contains(cookie), "the trace names no session")

            let page = try await app.get("/admin/incidents/\(incident.id)", headers: Self.admin)
            #expect(page.status == 200)
            #expect(page.text.contains("Your change could not be saved"))
            #expect(page.text.contains("<p id=\"incident-replay\">identical: 3 steps over build#1</p>"), "\(page.text)")

            let test = try await app.get("/admin/incidents/\(incident.id)/test.swift", headers: Self.admin)
            #expect(test.status == 200)
            #expect(test.text.contains("@Suite(") && test.text.contains("TraceTestStore"), "\(test.text)")
        }
    }

    @Test("incidents are the admin's alone: without the token every incident address is refused")
    func onlyTheAdmin() async throws {
        let sessions = MemorySessionStore()
        try await TestApp.run(
            configure: AdminControllerTests.configure, environment: { .webTest(clock: $0, sessions: sessions) }
        ) { app in
            let cookie = try await app.newSession()
            sessions.fail()
            #expect(try await app.scriptPost(form: "body=koa", cookie: cookie).status == 503)
            sessions.fail(false)
            let id = try #require(app.services.incidents.incidents.first?.id)
            for path in [
                "/admin/incidents", "/admin/incidents/\(id)", "/admin/incidents/\(id)/trace.json",
                "/admin/incidents/\(id)/test.swift",
            ] {
                let anonymous = try await app.get(path, cookie: cookie)
                #expect(anonymous.status == 401, "\(path): \(anonymous)")
                #expect(!anonymous.text.contains("koa"), "\(path)")
                let forged = try await app.get(path, headers: [("Authorization", "Bearer not-the-token")])
                #expect(forged.status == 401, "\(path): \(forged)")
            }
            let missing = try await app.get("/admin/incidents/0123456789abcdef", headers: Self.admin)
            #expect(missing.status == 404)
            #expect(missing.text.contains("There is no incident 0123456789abcdef now"), "\(missing.text)")
        }
    }

    @Test("a refusal of the request itself, or load shed on purpose, is no incident")
    func refusalsAreNoIncidents() async throws {
        try await TestApp.run(
            configure: { configuration in
                AdminControllerTests.configure(&configuration)
                configuration.maxEventStreamsPerSession = 1
            }
        ) { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "color=plaid", cookie: cookie).status == 422)
            #expect(try await app.get("/no-such-page", cookie: cookie).status == 404)
            let stream = try await app.openEventStream(cookie: cookie)
            let second = try await app.get("/events", cookie: cookie)
            #expect(second.status == 503, "\(second)")
            await stream.close()
            #expect(app.services.incidents.incidents.isEmpty)
        }
    }
}
