import LuthierFeatures
import Testing

@testable import LuthierLive

@Suite struct LuthierEnvironmentLiveTests {
    @Test func theLiveClockIsRealTime() async throws {
        let elapsed = try await Self.timeOfSleep(.milliseconds(5), on: LuthierEnvironment.live.clock)
        #expect(elapsed >= .milliseconds(5))
    }

    private static func timeOfSleep<C: Clock<Duration>>(_ duration: Duration, on clock: C) async throws -> Duration {
        let start = clock.now
        try await clock.sleep(for: duration)
        return start.duration(to: clock.now)
    }
}
