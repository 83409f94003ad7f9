/// Those waiting for a condition on some state to hold, each resumed by the change that makes it
/// hold: what lets a caller (a graceful shutdown, a test) await a count instead of looking again
/// and again. Kept inside the owner's lock; the owner resumes what `satisfied(by:)` returns once
/// it has let go of the lock.
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

    /// Takes out the waiters whose condition `value` meets.
    package mutating func satisfied(by value: Value) -> [CheckedContinuation<Bool, Never>] {
        guard !waiters.isEmpty else { return [] }
        let met = waiters.filter { $0.value.condition(value) }
        for number in met.keys { waiters[number] = nil }
        return met.values.map(\.continuation)
    }

    /// Waits until resumed: `register` runs with the continuation under the owner's lock and
    /// returns true when the condition holds already (nothing to wait for), else adds the waiter;
    /// on cancellation `cancelled` takes it out again under the lock. True unless cancelled.
    package static func wait(
        register: (CheckedContinuation<Bool, Never>) -> Bool,
        cancelled: @escaping @Sendable () -> CheckedContinuation<Bool, Never>?
    ) async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                if register(continuation) { continuation.resume(returning: true) }
            }
        } onCancel: {
            cancelled()?.resume(returning: false)
        }
    }
}
