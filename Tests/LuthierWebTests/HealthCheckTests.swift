import Synchronization
import Testing

@testable import LuthierWeb

/// `/readyz` (and `/healthz`, which balancers already ask) is readiness: ready while the instance
/// can keep a customer's changes, "not ready" (503 with `Retry-After`) while its database does not
/// take writes, and ready again once it does. `/livez` is liveness: the process serves, whatever
/// its database does.
@Suite("GET /readyz, /healthz and /livez")
struct HealthCheckTests {
    @Test(arguments: ["/readyz", "/healthz"])
    func readyWhileTheDatabaseTakesWritesNotReadyWhileItDoesNot(path: String) async throws {
        let problem = Mutex<String?>(nil)
        try await TestApp.run(readiness: { problem.withLock { $0 } }) { app in
            let ready = try await app.get(path)
            #expect(ready.status == 200)
            #expect(ready.text == "ok\n")

            let full = "the database luthier.sqlite does not take writes (database or disk is full)"
            problem.withLock { $0 = full }
            let lost = try await app.get(path)
            #expect(lost.status == 503)
            #expect(lost.header("retry-after") == "5")
            #expect(lost.header("cache-control") == "no-store")
            #expect(lost.text == "not ready: \(full)\n")
            // Alive all the same: restarting the process would not mend the disk.
            let alive = try await app.get("/livez")
            #expect(alive.status == 200)
            #expect(alive.text == "ok\n")

            problem.withLock { $0 = nil }
            #expect(try await app.get(path).status == 200)
        }
    }
}
