import Synchronization

/// Those awaiting a count of a store's readers (`Store.untilSubscribers`): what lets a test or a
/// shutdown await "every stream let go" instead of looking again and again.
///
/// The store tells it each new count while holding its own lock, and a waiter registers under that
/// same lock, so no change falls between a look and a registration. Its own lock is taken after
/// the store's, never before; a waiter's cancellation takes only this one, so it never waits for
/// the store.
final class ReaderCountWaiters: Sendable {
    private struct Waiter {
        let condition: @Sendable (Int) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private let waiters = Mutex<[Int: Waiter]>([:])
    private let nextNumber = Atomic<Int>(0)
    /// How many wait: read without a lock on the store's every change of readers.
    private let waiting = Atomic<Int>(0)

    /// Whether anybody waits; nobody does in a shop that is not being tested or shut down.
    var isEmpty: Bool { waiting.load(ordering: .relaxed) == 0 }

    /// A number for the next waiter, taken before it waits (so that its cancellation can name it).
    func number() -> Int { nextNumber.add(1, ordering: .relaxed).oldValue }

    /// Registers waiter `number` until a count meets `condition`, unless its task is cancelled
    /// (then false). Called under the store's lock. The cancellation is looked at under this lock,
    /// which `cancel` takes too: a cancellation is either seen here or finds the waiter there.
    func add(
        _ number: Int, _ condition: @escaping @Sendable (Int) -> Bool,
        _ continuation: CheckedContinuation<Bool, Never>
    ) -> Bool {
        waiters.withLock { waiters in
            guard !Task.isCancelled else { return false }
            waiters[number] = Waiter(condition: condition, continuation: continuation)
            waiting.add(1, ordering: .relaxed)
            return true
        }
    }

    /// Resumes the waiters `count` satisfies. Called under the store's lock (a resumption only
    /// schedules the waiting task; nothing runs here).
    func counted(_ count: Int) {
        guard !isEmpty else { return }
        waiters.withLock { waiters in
            for (number, waiter) in waiters where waiter.condition(count) {
                waiters[number] = nil
                waiting.subtract(1, ordering: .relaxed)
                waiter.continuation.resume(returning: true)
            }
        }
    }

    /// Ends waiter `number`'s wait unmet (its task was cancelled), if it still waits.
    func cancel(_ number: Int) {
        let waiter = waiters.withLock { $0.removeValue(forKey: number) }
        guard let waiter else { return }
        waiting.subtract(1, ordering: .relaxed)
        waiter.continuation.resume(returning: false)
    }
}
