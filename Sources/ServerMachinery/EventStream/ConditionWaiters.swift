/// Those waiting for a condition on some state to hold, each resumed by the change that makes it
/// hold: what lets a caller (a graceful shutdown, a test) await a count instead of looking again
/// and again. Kept inside the owner's lock (see `ConditionWatched`); the owner resumes what
/// `satisfied(by:)` returns once it has let go of the lock.
package struct ConditionWaiters<Value>: Sendable {
    private struct Waiter: Sendable {
        let condition: @Sendable (Value) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private var waiters: [Int: Waiter] = [:]
    private var nextNumber = 0

    package init() {}

    /// A number for the next waiter, taken before it waits (so that a cancellation can name it).
    package mutating func number() -> Int {
        defer { nextNumber += 1 }
        return nextNumber
    }

    /// Registers waiter `number` until `condition` holds.
    package mutating func add(
        _ number: Int, _ condition: @escaping @Sendable (Value) -> Bool,
        _ continuation: CheckedContinuation<Bool, Never>
    ) {
        waiters[number] = Waiter(condition: condition, continuation: continuation)
    }

    /// Takes out waiter `number`, if it still waits (cancelled, or past a time limit).
    package mutating func remove(_ number: Int) -> CheckedContinuation<Bool, Never>? {
        waiters.removeValue(forKey: number)?.continuation
    }

    /// Whether nobody waits: an owner need not work out what they watch.
    package var isEmpty: Bool { waiters.isEmpty }

    /// How many wait.
    package var count: Int { waiters.count }

    /// Takes out the waiters whose condition `value` meets.
    package mutating func satisfied(by value: Value) -> [CheckedContinuation<Bool, Never>] {
        guard !waiters.isEmpty else { return [] }
        let met = waiters.filter { $0.value.condition(value) }
        for number in met.keys { waiters[number] = nil }
        return met.values.map(\.continuation)
    }
}

/// An owner whose callers may await a condition on what it watches (`waitUntil`): it keeps a
/// `ConditionWaiters` beside that state under its lock, and resumes what `satisfied(by:)` returns
/// at each change.
package protocol ConditionWatched: AnyObject, Sendable {
    associatedtype Watched

    /// Runs `body` under the owner's lock, on its waiters and what they watch now.
    func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<Watched>, Watched) -> Result) -> Result
}

extension ConditionWatched {
    /// Returns true once what the owner watches meets `condition` (at once if it does), false if
    /// the task is cancelled first.
    package func waitUntil(_ condition: @escaping @Sendable (Watched) -> Bool) async -> Bool {
        let number = withConditionWaiters { waiters, _ in waiters.number() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Nil once registered; else the answer now: the condition holds, or the task was
                // cancelled before it could wait (its cancellation handler has run already).
                let answer = withConditionWaiters { waiters, watched -> Bool? in
                    if condition(watched) { return true }
                    if Task.isCancelled { return false }
                    waiters.add(number, condition, continuation)
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            withConditionWaiters { waiters, _ in waiters.remove(number) }?.resume(returning: false)
        }
    }
}
