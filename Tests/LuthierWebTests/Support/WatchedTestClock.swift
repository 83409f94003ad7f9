import Clocks
import ServerMachinery
import Synchronization
import TestSupport

/// swift-clocks' `TestClock`, watched: it knows which sleeps are pending, so a test advances time
/// only once the server's timers are asleep, one deadline at a time, and knows that every timer
/// that fired has run its action and gone back to sleep before it looks at the result.
final class WatchedTestClock: Clock, ConditionWatched {
    typealias Duration = Swift.Duration
    typealias Instant = TestClock<Swift.Duration>.Instant

    /// How long to wait for the server's timers to go back to sleep: a safety net only.
    static let settleLimit: Duration = .seconds(5)

    let base = TestClock<Swift.Duration>()

    struct State {
        var pending: [Int: Instant] = [:]
        var nextID = 0
        var started = 0
        /// Those waiting in `waitUntil` for a condition on the sleeps.
        var waiters = ConditionWaiters<State>()

        /// Takes out the waiters whose condition holds now, to be resumed once the lock is let go.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Bool, Never>] {
            guard !waiters.isEmpty else { return [] }
            let sleeps = self
            return waiters.satisfied(by: sleeps)
        }
    }

    private let state = Mutex(State())

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let (id, met) = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.started += 1
            state.pending[id] = deadline
            return (id, state.satisfiedWaiters())
        }
        for waiter in met { waiter.resume(returning: true) }
        defer {
            let met = state.withLock { state in
                state.pending[id] = nil
                return state.satisfiedWaiters()
            }
            for waiter in met { waiter.resume(returning: true) }
        }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    /// Returns true once at least `count` sleeps are pending (the clock tells each sleep that
    /// starts or ends, so nothing polls); false after `limit`, a safety net only.
    func untilPending(atLeast count: Int, within limit: Duration = settleLimit) async -> Bool {
        await until(within: limit) { $0.pending.count >= count }
    }

    /// Sleeps waiting right now.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Advances by `duration`, deadline by deadline. Before each step it waits until at least
    /// `timers` sleeps are pending; after each step, until every timer it woke has slept again.
    func advance(by duration: Duration, timers: Int) async throws {
        let target = now.advanced(by: duration)
        while true {
            try await settle { $0.pending.count >= timers }
            let (next, due, started) = state.withLock { state in
                let next = state.pending.values.min()
                let due = next.map { next in state.pending.values.filter { $0 <= next }.count } ?? 0
                return (next, due, state.started)
            }
            guard let next, next <= target else {
                await base.advance(to: target)
                return
            }
            await base.advance(to: next)
            try await settle { $0.started >= started + due }
        }
    }

    private func settle(_ condition: @escaping @Sendable (State) -> Bool) async throws {
        let settled = await until(within: Self.settleLimit, condition)
        guard settled else { throw TimeoutError(what: "the server's timers to sleep again", limit: Self.settleLimit) }
    }

    /// True once `condition` holds on the sleeps, told as they start and end; false after `limit`.
    private func until(within limit: Duration, _ condition: @escaping @Sendable (State) -> Bool) async -> Bool {
        await within(limit) { _ = await self.waitUntil(condition) }
    }

    func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<State>, State) -> Result) -> Result {
        state.withLock { state in
            let sleeps = state
            return body(&state.waiters, sleeps)
        }
    }
}
