import Synchronization

/// A count changed without a lock on a hot path (a connection opened or closed) that a caller may
/// still await a condition on (`waitUntil`): a graceful shutdown, or a test that must know the
/// server has let a connection go, without looking again and again.
///
/// The count is an atomic; the waiters sit under a lock that a change takes only while somebody
/// waits. A change adds to the count, then looks whether anybody waits; a waiter says it waits,
/// then reads the count. Both in sequentially consistent order, so one of the two always sees the
/// other: no change falls between a waiter's look and its registration.
package final class WatchedCount: ConditionWatched {
    private let count = Atomic<Int>(0)
    private let waiting = Atomic<Int>(0)
    private let waiters = Mutex(ConditionWaiters<Int>())

    package init() {}

    /// The count now.
    package var value: Int { count.load(ordering: .relaxed) }

    /// Adds `change` (negative to take away) and returns the new count.
    @discardableResult
    package func add(_ change: Int) -> Int {
        let now = count.wrappingAdd(change, ordering: .sequentiallyConsistent).newValue
        if waiting.load(ordering: .sequentiallyConsistent) > 0 { tellWaiters() }
        return now
    }

    private func tellWaiters() {
        let met = waiters.withLock { $0.satisfied(by: count.load(ordering: .sequentiallyConsistent)) }
        waiting.wrappingSubtract(met.count, ordering: .sequentiallyConsistent)
        for continuation in met { continuation.resume(returning: true) }
    }

    package func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<Int>, Int) -> Result) -> Result {
        waiters.withLock { waiters in
            // Counted as waiting before the count is read (see the type's comment); a look that
            // registers nobody gives its place back.
            waiting.wrappingAdd(1, ordering: .sequentiallyConsistent)
            let before = waiters.count
            let result = body(&waiters, count.load(ordering: .sequentiallyConsistent))
            waiting.wrappingSubtract(1 - (waiters.count - before), ordering: .sequentiallyConsistent)
            return result
        }
    }
}
