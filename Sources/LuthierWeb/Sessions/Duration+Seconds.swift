import Foundation

extension Duration {
    /// The duration in seconds, for `Date` arithmetic.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Whole seconds, rounded up (at least 1): what a `Retry-After` header says.
    var retryAfterSeconds: Int {
        let (seconds, attoseconds) = components
        return max(Int(seconds) + (attoseconds > 0 ? 1 : 0), 1)
    }
}

/// The time since now on `clock`, as a closure: timers and windows measured on an injected clock
/// (virtual in tests), whatever kind of clock it is.
func stopwatch<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}
