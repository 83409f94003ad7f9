import Synchronization
import Testing

@testable import LuthierWeb

/// `/healthz` is what a load balancer asks: ready while the instance can serve, "not ready"
/// (503 with `Retry-After`) while its database does not answer, and ready again once it does.
@Suite("GET /healthz")
struct HealthCheckTests {
    @Test func readyWhileTheDatabaseAnswersNotReadyWhileItDoesNot() async throws {
        let problem = Mutex<String?>(nil)
        try await TestApp.run(readiness: { problem.withLock { $0 } }) { app in
            let ready = try await app.get("/healthz")
            #expect(ready.status == 200)
            #expect(ready.text == "ok\n")

            problem.withLock { $0 = "the database at postgres://shop@db:5432/luthier does not answer" }
            let lost = try await app.get("/healthz")
            #expect(lost.status == 503)
            #expect(lost.header("retry-after") == "5")
            #expect(lost.header("cache-control") == "no-store")
            #expect(lost.text == "not ready: the database at postgres://shop@db:5432/luthier does not answer\n")

            problem.withLock { $0 = nil }
            #expect(try await app.get("/healthz").status == 200)
        }
    }
}
