import Synchronization

/// A value that changes over time and that many readers follow: the server-side counterpart of
/// Combine's `CurrentValueSubject` (or a `@Published` property read through `$x`).
///
/// Each subscriber gets the current value at once and then every later distinct value, but never a
/// backlog: its buffer holds only the newest value, so a slow reader skips to the latest state
/// instead of making the server queue every intermediate one (conflation). Equal consecutive values
/// are dropped (`removeDuplicates`).
public final class CurrentValueBroadcast<Value: Sendable & Equatable>: Sendable {
    private struct State {
        var value: Value
        var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextSubscriberID = 0
        var isFinished = false
    }

    private let state: Mutex<State>

    public init(_ initialValue: Value) {
        state = Mutex(State(value: initialValue))
    }

    /// The latest value, for readers that need a snapshot rather than a stream (a full page render).
    public var value: Value {
        state.withLock { $0.value }
    }

    /// How many readers follow the value right now; tests and metrics use it to prove nothing leaks.
    public var subscriberCount: Int {
        state.withLock { $0.subscribers.count }
    }

    /// Replaces the value and tells every subscriber, unless it is equal to the current one.
    ///
    /// Yielding happens under the lock so that two concurrent sends reach every subscriber in the
    /// order they were applied; a yield never suspends and never calls back into this type.
    public func send(_ newValue: Value) {
        state.withLock { state in
            guard !state.isFinished, state.value != newValue else { return }
            state.value = newValue
            for continuation in state.subscribers.values {
                continuation.yield(newValue)
            }
        }
    }

    /// Applies `transform` to the current value atomically and publishes the result.
    @discardableResult
    public func update(_ transform: (inout Value) -> Void) -> Value {
        state.withLock { state in
            guard !state.isFinished else { return state.value }
            var newValue = state.value
            transform(&newValue)
            if newValue != state.value {
                state.value = newValue
                for continuation in state.subscribers.values {
                    continuation.yield(newValue)
                }
            }
            return newValue
        }
    }

    /// The current value followed by every change; the sequence ends when the broadcast finishes or
    /// the reader stops iterating (which unsubscribes it).
    public func values() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id: Int? = state.withLock { state in
            guard !state.isFinished else { return nil }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.subscribers[id] = continuation
            continuation.yield(state.value)
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.removeSubscriber(id)
        }
        return stream
    }

    /// Ends every subscriber's sequence; later sends are ignored. Used when a session is dropped.
    public func finish() {
        let continuations = state.withLock { state in
            state.isFinished = true
            let continuations = Array(state.subscribers.values)
            state.subscribers.removeAll()
            return continuations
        }
        for continuation in continuations {
            continuation.finish()
        }
    }

    private func removeSubscriber(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}
