import Clocks
import Synchronization
import TestSupport

/// swift-clocks' `TestClock`, watched: it knows which sleeps are pending, so a test advances time
/// only once the server's timers are asleep, one deadline at a time, and knows that every timer
/// that fired has run its action and gone back to sleep before it looks at the result.
final class WatchedTestClock: Clock, Sendable {
    typealias Duration = Swift.Duration
    typealias Instant = TestClock<Swift.Duration>.Instant

    /// How long to wait for the server's timers to go back to sleep: a safety net only.
    static let settleLimit: Duration = .seconds(5)

    let base = TestClock<Swift.Duration>()

    private struct State {
        var pending: [Int: Instant] = [:]
        var nextID = 0
        var started = 0
    }

    private let state = Mutex(State())

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.started += 1
            state.pending[id] = deadline
            return id
        }
        defer { _ = state.withLock { $0.pending.removeValue(forKey: id) } }
        try await base.sleep(until: deadline, tolerance: tolerance)
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
        let settled = await eventually(within: Self.settleLimit) { self.state.withLock { condition($0) } }
        guard settled else { throw TimeoutError(what: "the server's timers to sleep again", limit: Self.settleLimit) }
    }
}
