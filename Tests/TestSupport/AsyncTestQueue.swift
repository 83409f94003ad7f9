import Synchronization

/// An unbounded queue between a producer (a socket's read loop) and one test that awaits its
/// elements one at a time. `next()` honours cancellation without losing a later element, so a
/// reader can be raced against a timeout.
package final class AsyncTestQueue<Element: Sendable>: Sendable {
    private struct Waiter {
        package let id: Int
        package let continuation: CheckedContinuation<Element?, any Error>
    }

    private struct State {
        package var buffer: [Element] = []
        package var waiter: Waiter?
        package var nextID = 0
        package var isFinished = false
        package var failure: (any Error)?
    }

    private let state = Mutex(State())

    package func push(_ element: Element) {
        let waiter: Waiter? = state.withLock { state in
            guard !state.isFinished else { return nil }
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.buffer.append(element)
            return nil
        }
        waiter?.continuation.resume(returning: element)
    }

    /// Ends the queue: buffered elements are still delivered, then `nil` (or `error`).
    package func finish(throwing error: (any Error)? = nil) {
        let waiter: Waiter? = state.withLock { state in
            guard !state.isFinished else { return nil }
            state.isFinished = true
            state.failure = error
            defer { state.waiter = nil }
            return state.waiter
        }
        guard let waiter else { return }
        if let error {
            waiter.continuation.resume(throwing: error)
        } else {
            waiter.continuation.resume(returning: nil)
        }
    }

    /// The next element, or nil once the queue has finished and is drained.
    package func next() async throws -> Element? {
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Element?, any Error>) in
                let immediate: Result<Element?, any Error>? = state.withLock { state in
                    if !state.buffer.isEmpty { return .success(state.buffer.removeFirst()) }
                    if state.isFinished {
                        if let failure = state.failure { return .failure(failure) }
                        return .success(nil)
                    }
                    if Task.isCancelled { return .failure(CancellationError()) }
                    guard state.waiter == nil else { return .failure(ConcurrentReadError()) }
                    state.waiter = Waiter(id: id, continuation: continuation)
                    return nil
                }
                if let immediate { continuation.resume(with: immediate) }
            }
        } onCancel: {
            let waiter: Waiter? = state.withLock { state in
                guard let waiter = state.waiter, waiter.id == id else { return nil }
                state.waiter = nil
                return waiter
            }
            waiter?.continuation.resume(throwing: CancellationError())
        }
    }

    package struct ConcurrentReadError: Error {}
}

/// Raised when a bounded wait runs out: a safety net so a broken server fails the test instead of
/// hanging it, never the thing a test asserts.
package struct TimeoutError: Error, CustomStringConvertible {
    package let what: String
    package let limit: Duration

    package var description: String { "Timed out after \(limit) waiting for \(what)" }

    package init(what: String, limit: Duration) {
        self.what = what
        self.limit = limit
    }
}

/// Runs `operation`, failing with `TimeoutError` if it has not finished within `limit`.
package func withTimeout<Value: Sendable>(
    _ limit: Duration,
    waitingFor what: String,
    _ operation: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await operation() }
        group.addTask {
            try await Task.sleep(for: limit)
            throw TimeoutError(what: what, limit: limit)
        }
        defer { group.cancelAll() }
        guard let value = try await group.next() else { throw TimeoutError(what: what, limit: limit) }
        return value
    }
}

/// Returns true once `values` yields one that meets `condition` (a store's states, a feed's
/// outputs: each as it is told, nothing polled); false if the sequence ends or `limit` passes
/// first. The limit only keeps a broken server from hanging the test.
package func firstValue<Values: AsyncSequence & Sendable>(
    of values: Values, within limit: Duration = .seconds(5),
    where condition: @escaping @Sendable (Values.Element) -> Bool
) async -> Bool where Values.Element: Sendable {
    let met = Mutex(false)
    let finished = await within(limit) {
        do {
            for try await value in values where condition(value) {
                met.withLock { $0 = true }
                return
            }
        } catch {}
    }
    return finished && met.withLock { $0 }
}

/// Runs `wait` (an await the code under test resumes when something happened: a count, a sleep)
/// and returns true once it has returned; false if `limit` passes first, and `wait` is cancelled.
/// The limit only keeps a broken server from hanging the test; nothing polls.
package func within(_ limit: Duration = .seconds(5), _ wait: @escaping @Sendable () async -> Void) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask {
            await wait()
            return !Task.isCancelled
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return false
        }
        let first = await group.next() ?? false
        group.cancelAll()
        return first
    }
}
