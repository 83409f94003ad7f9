/// A wait until `duration` after now on `clock`, "now" being when this is called, not when the
/// wait begins: however late the waiting task starts, it wakes when the time is due. The debounce
/// and the workshop floor's stage timer both need this, and a test clock advanced by `duration`
/// then always wakes it. (Generic, so the clock's own instant type is kept when an existential is
/// passed.)
public func alarm<C: Clock<Duration>>(on clock: C, after duration: Duration) -> @Sendable () async throws -> Void {
    let deadline = clock.now.advanced(by: duration)
    return { try await clock.sleep(until: deadline, tolerance: nil) }
}

/// The instants `interval`, `2 × interval`, … after now on `clock`: `tick(n)` waits for the n-th
/// and returns the number of the latest instant passed by then, which is `n` unless the wait ended
/// late (a stalled process): a timer then goes on from the latest instant instead of firing once
/// for each one it missed, as a run loop's timer does. A timer built on it does not drift, since
/// each instant is counted from the start rather than from when the previous tick's work ended.
func metronome<C: Clock<Duration>>(
    on clock: C, every interval: Duration
) -> @Sendable (_ tick: Int) async throws -> Int {
    let start = clock.now
    return { tick in
        try await clock.sleep(until: start.advanced(by: interval * tick), tolerance: nil)
        return max(tick, Int(start.duration(to: clock.now) / interval))
    }
}

/// The time since now on `clock`, each time the returned closure is called: timers, windows and
/// recordings measured on an injected clock (virtual in tests), whatever kind of clock it is.
/// (Generic, so the clock's own instant type is kept when an existential is passed.)
public func stopwatch<C: Clock<Duration>>(on clock: C) -> @Sendable () -> Duration {
    let start = clock.now
    return { start.duration(to: clock.now) }
}

/// `operation`, unless `duration` passes on `clock` first: then it is cancelled and
/// `DeadlinePassed` is thrown (the seeds' `timeout(_:scheduler:)`). The deadline is taken now.
public func withDeadline<C: Clock<Duration>, T: Sendable>(
    _ duration: Duration, on clock: C, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let wait = alarm(on: clock, after: duration)
    return try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await wait()
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DeadlinePassed(after: duration) }
        return value
    }
}

/// A deadline passed before the work it bounded ended.
public struct DeadlinePassed: Error, Hashable, Sendable {
    public let after: Duration
}
