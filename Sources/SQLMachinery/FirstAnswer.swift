import Synchronization

/// The first of several answers to one wait, later ones dropped: what a database call races its
/// deadline and the caller's cancellation with, and what an SQLite access ends with.
///
/// The call is not awaited once the race is decided, since it may never end: PostgresNIO never
/// answers a query sent on a connection the server ended, and cancelling the task does not end
/// it. So the call runs in a task of its own, which its own answer (or the close of its
/// connection) ends whenever it can, and the caller is answered by the deadline. A task group
/// would wait for it.
package final class FirstAnswer<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var decided: Result<T, any Error>?
        var onDecided: (@Sendable (Result<T, any Error>) -> Void)?
    }

    private let state = Mutex(State())

    /// The first of `work`'s answer, `timeout` passing on `clock` (answered with the error
    /// `otherwise` makes) and the caller's cancellation; `whenFailed` runs when that first answer
    /// is not `work`'s success (to close its connection, say).
    package static func of(
        _ work: @escaping @Sendable () async throws -> T, within timeout: Duration, on clock: any Clock<Duration>,
        otherwise timedOut: @escaping @Sendable () -> any Error, whenFailed: @escaping @Sendable () -> Void = {}
    ) async throws -> T {
        let race = FirstAnswer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                race.wait(continuation)
                let call = Task {
                    do {
                        race.answer(.success(try await work()))
                    } catch {
                        race.answer(.failure(error))
                    }
                }
                let timer = Task {
                    guard (try? await clock.sleep(for: timeout)) != nil else { return }
                    race.answer(.failure(timedOut()))
                }
                race.whenDecided { result in
                    timer.cancel()
                    call.cancel()
                    if case .failure = result { whenFailed() }
                }
            }
        } onCancel: {
            race.answer(.failure(CancellationError()))
        }
    }

    /// Where the answer goes; one that came first is given at once.
    private func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let early = state.withLock { state -> Result<T, any Error>? in
            guard let decided = state.decided else {
                state.continuation = continuation
                return nil
            }
            return decided
        }
        if let early { continuation.resume(with: early) }
    }

    /// Told of the answer once it is known (at once, if it is).
    private func whenDecided(_ body: @escaping @Sendable (Result<T, any Error>) -> Void) {
        let decided = state.withLock { state -> Result<T, any Error>? in
            guard let decided = state.decided else {
                state.onDecided = body
                return nil
            }
            return decided
        }
        if let decided { body(decided) }
    }

    /// The answer, once one is given (for one waiter).
    package var value: T {
        get async throws { try await withCheckedThrowingContinuation { wait($0) } }
    }

    /// Gives `result` as the answer, unless one was given already.
    package func answer(_ result: Result<T, any Error>) {
        let (continuation, onDecided) = state.withLock { state in
            guard state.decided == nil else {
                return (CheckedContinuation<T, any Error>?.none, (@Sendable (Result<T, any Error>) -> Void)?.none)
            }
            state.decided = result
            defer {
                state.continuation = nil
                state.onDecided = nil
            }
            return (state.continuation, state.onDecided)
        }
        continuation?.resume(with: result)
        onDecided?(result)
    }
}
