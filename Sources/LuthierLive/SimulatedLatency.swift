import LuthierFeatures

/// The original app's response times, replayed on demand so that a demo shows every loading
/// state (`--simulate-latency`). Each call waits a uniformly random time within its range, in
/// whole milliseconds, on the injected clock — so tests move time by hand instead of waiting.
public struct SimulatedLatency: Sendable {
    /// Availability: 1–2 s.
    public static let availability: ClosedRange<Duration> = .seconds(1) ... .seconds(2)
    /// Build-time estimate: 0.7–1.5 s.
    public static let estimate: ClosedRange<Duration> = .milliseconds(700) ... .milliseconds(1500)
    /// Shipping options: 0.3–1 s.
    public static let shipping: ClosedRange<Duration> = .milliseconds(300) ... .seconds(1)
    /// Placing an order: 1–2 s.
    public static let order: ClosedRange<Duration> = .seconds(1) ... .seconds(2)

    let clock: any Clock<Duration>
    let isEnabled: Bool
    /// Picks a number of milliseconds within the range; `Int.random(in:)` by default.
    let randomMilliseconds: @Sendable (ClosedRange<Int>) -> Int

    /// - Parameters:
    ///   - clock: the clock to sleep on (a `TestClock` in tests).
    ///   - isEnabled: off, every wait returns at once.
    ///   - randomMilliseconds: the source of randomness, for tests that want a fixed delay.
    public init(
        clock: any Clock<Duration>,
        isEnabled: Bool,
        randomMilliseconds: @escaping @Sendable (ClosedRange<Int>) -> Int = { Int.random(in: $0) }
    ) {
        self.clock = clock
        self.isEnabled = isEnabled
        self.randomMilliseconds = randomMilliseconds
    }

    /// Sleeps a random time within `range` when enabled; throws only if the task is cancelled.
    public func wait(_ range: ClosedRange<Duration>) async throws {
        guard isEnabled else { return }
        let bounds = Int(range.lowerBound.milliseconds)...Int(range.upperBound.milliseconds)
        let chosen = min(max(randomMilliseconds(bounds), bounds.lowerBound), bounds.upperBound)
        try await clock.sleep(for: .milliseconds(chosen))
    }
}
