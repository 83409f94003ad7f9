import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive
@testable import SQLMachinery

@Suite struct LuthierEnvironmentLiveTests {
    @Test func theLiveSystemRunsOnRealTimeWithTheEmbeddedRatesAndAFreshStore() async throws {
        let system = try LiveSystem(
            database: ":memory:", ratesURL: nil, simulateLatency: false, logger: .init(label: "test"))
        let elapsed = try await Self.timeOfSleep(.milliseconds(5), on: system.environment.clock)
        #expect(elapsed >= .milliseconds(5))
        #expect(try await system.environment.exchangeRates.rate(.eur).perDollar == Decimal(string: "0.83"))
        #expect(
            try await system.environment.workshop.availability([CartLine(guitar: .standard, quantity: 1)])
                == [.available])
        #expect(system.environment.makeID() != system.environment.makeID())
        #expect(abs(system.environment.now().timeIntervalSinceNow) < 60)
        try await system.shutdown()
    }

    @Test func theLiveSystemKeepsSessionsAndAnalyticsInItsOwnStore() async throws {
        let system = try LiveSystem(
            database: ":memory:", ratesURL: nil, simulateLatency: false, logger: .init(label: "test"))
        let snapshot = SessionSnapshot(orderKey: "order-key", analyticsKey: "analytics-key", revision: 1)
        #expect(try await system.environment.sessions.save("session", 0, snapshot) == .saved)
        #expect(try await system.environment.sessions.load("session")?.snapshot == snapshot)
        guard case .sqlite(let sqlite) = system.database else {
            Issue.record("':memory:' should open an SQLite store")
            return
        }
        #expect(try sqlite.rowCount(in: "sessions") == 1)

        let event = AnalyticsEvent(
            action: "add", configuration: "casual-natural-mahogany-rosewood", at: Date(), sessionKey: "analytics-key")
        try await system.environment.analytics.record([event])
        #expect(try await system.environment.analytics.report(10).totalEvents == 1)
        #expect(try sqlite.rowCount(in: "analytics_events") == 1)
        try await system.shutdown()
    }

    private static func timeOfSleep<C: Clock<Duration>>(_ duration: Duration, on clock: C) async throws -> Duration {
        let start = clock.now
        try await clock.sleep(for: duration)
        return start.duration(to: clock.now)
    }
}
