import ServerMachinery
import Synchronization

/// What a test double was told, in order, with a way to await it: `until` returns as soon as an
/// append meets its condition, so a test waits for a call made off the request's path (analytics,
/// an announcement to other instances) without looking again and again.
package final class Recording<Value: Sendable>: ConditionWatched {
    private struct State {
        var values: [Value] = []
        var waiters = ConditionWaiters<[Value]>()
    }

    private let state = Mutex(State())

    package init() {}

    /// Everything recorded so far.
    package var values: [Value] { state.withLock { $0.values } }

    package func append(contentsOf values: [Value]) {
        let met = state.withLock { state in
            state.values += values
            return state.waiters.satisfied(by: state.values)
        }
        for waiter in met { waiter.resume(returning: true) }
    }

    package func append(_ value: Value) {
        append(contentsOf: [value])
    }

    /// True once what is recorded meets `condition` (at once if it does); false after `limit`.
    package func until(within limit: Duration = .seconds(5), _ condition: @escaping @Sendable ([Value]) -> Bool) async
        -> Bool
    {
        await within(limit) { _ = await self.waitUntil(condition) }
    }

    package func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<[Value]>, [Value]) -> Result) -> Result {
        state.withLock { state in
            let values = state.values
            return body(&state.waiters, values)
        }
    }
}
