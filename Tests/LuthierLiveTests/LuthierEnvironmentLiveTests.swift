import Foundation
import LuthierFeatures
import Testing

@testable import LuthierLive

@Suite struct LuthierEnvironmentLiveTests {
    @Test func theLiveSystemRunsOnRealTimeWithTheEmbeddedRatesAndAFreshStore() async throws {
        let system = try LiveSystem(
            databasePath: ":memory:", ratesURL: nil, simulateLatency: false, logger: .init(label: "test"))
        let elapsed = try await Self.timeOfSleep(.milliseconds(5), on: system.environment.clock)
        #expect(elapsed >= .milliseconds(5))
        #expect(try await system.environment.exchangeRates.rate(.eur).perDollar == Decimal(string: "0.83"))
        #expect(try await system.environment.workshop.availability(.standard) == .available)
        #expect(system.environment.makeID() != system.environment.makeID())
        try await system.shutdown()
    }

    private static func timeOfSleep<C: Clock<Duration>>(_ duration: Duration, on clock: C) async throws -> Duration {
        let start = clock.now
        try await clock.sleep(for: duration)
        return start.duration(to: clock.now)
    }
}
