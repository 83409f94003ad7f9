/// Those awaiting a count of a store's readers (`Store.untilSubscribers`): what lets a test or a
/// shutdown await "every stream let go" instead of looking again and again.
///
/// Kept in the store's core, under its lock: a waiter registers, and every change of the readers
/// is told, under that one lock, so no change falls between a look and a registration, and a
/// store nobody waits on holds an empty dictionary and a number, nothing more.
struct ReaderCountWaiters {
    /// Names one waiter, for its cancellation: an object made only by someone who waits, so that
    /// a store nobody waits on keeps no counter for them.
    final class Ticket: Sendable {}

    private struct Waiter {
        let ticket: Ticket
        let condition: @Sendable (Int) -> Bool
        let continuation: CheckedContinuation<Bool, Never>
    }

    private var waiters: [ObjectIdentifier: Waiter] = [:]

    /// Whether anybody waits; nobody does in a shop that is not being tested or shut down.
    var isEmpty: Bool { waiters.isEmpty }

    /// Registers `ticket`'s waiter until a count meets `condition`, unless its task is cancelled
    /// already (then false): its cancellation takes the same lock, so it either is seen here or
    /// finds the waiter in `remove`.
    mutating func add(
        _ ticket: Ticket, _ condition: @escaping @Sendable (Int) -> Bool,
        _ continuation: CheckedContinuation<Bool, Never>
    ) -> Bool {
        guard !Task.isCancelled else { return false }
        waiters[ObjectIdentifier(ticket)] = Waiter(ticket: ticket, condition: condition, continuation: continuation)
        return true
    }

    /// Resumes the waiters `count` satisfies (a resumption only schedules the waiting task:
    /// nothing runs under the lock).
    mutating func counted(_ count: Int) {
        guard !waiters.isEmpty else { return }
        for (key, waiter) in waiters where waiter.condition(count) {
            waiters[key] = nil
            waiter.continuation.resume(returning: true)
        }
    }

    /// Takes out `ticket`'s waiter, if it still waits (its task was cancelled).
    mutating func remove(_ ticket: Ticket) -> CheckedContinuation<Bool, Never>? {
        waiters.removeValue(forKey: ObjectIdentifier(ticket))?.continuation
    }
}
