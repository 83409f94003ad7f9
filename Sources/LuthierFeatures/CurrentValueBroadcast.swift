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
        /// The readers that are callbacks (`sink`): no task waits for them.
        var sinks: [Int: BroadcastSink<Value>] = [:]
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

    /// How many callbacks follow the value right now.
    public var sinkCount: Int {
        state.withLock { $0.sinks.count }
    }

    /// Replaces the value and tells every subscriber, unless it is equal to the current one.
    ///
    /// Yielding happens under the lock so that two concurrent sends reach every subscriber in the
    /// order they were applied; a yield never suspends and never calls back into this type. The
    /// callbacks are called after the lock is released.
    public func send(_ newValue: Value) {
        offer(newValue).deliver()
    }

    /// As `send`, leaving the callbacks to the caller: a `Store` offers each new state under its
    /// own lock (so the order is the order of its actions) and delivers once it has released it
    /// (so a callback may read the store, or send to it).
    func offer(_ newValue: Value) -> BroadcastDelivery<Value> {
        state.withLock { state in
            guard !state.isFinished, state.value != newValue else { return BroadcastDelivery(sinks: []) }
            state.value = newValue
            for continuation in state.subscribers.values {
                continuation.yield(newValue)
            }
            return BroadcastDelivery(sinks: state.sinks.values.filter { $0.offer(newValue) })
        }
    }

    /// Calls `receive` with the current value at once, then with every later distinct value, until
    /// the subscription is cancelled or the broadcast finishes: Combine's `sink`, with no task
    /// behind it.
    ///
    /// Calls are serial and in order, and conflated like the other readers': a value sent while
    /// `receive` is still busy with an earlier one waits, and only the newest waits. They happen on
    /// the sender's thread, after every lock of this type and of the store is released, so
    /// `receive` must not wait for long (it holds up the sender meanwhile).
    public func sink(_ receive: @escaping @Sendable (Value) -> Void) -> BroadcastSubscription {
        let sink = BroadcastSink(receive)
        let added: Int? = state.withLock { state in
            guard !state.isFinished else { return nil }
            let id = state.nextSubscriberID
            state.nextSubscriberID += 1
            state.sinks[id] = sink
            _ = sink.offer(state.value)
            return id
        }
        guard let id = added else { return BroadcastSubscription {} }
        sink.drain()
        return BroadcastSubscription { [weak self] in
            sink.cancel()
            _ = self?.state.withLock { $0.sinks.removeValue(forKey: id) }
        }
    }

    /// Applies `transform` to the current value atomically and publishes the result.
    @discardableResult
    public func update(_ transform: (inout Value) -> Void) -> Value {
        let (newValue, delivery) = state.withLock { state in
            guard !state.isFinished else { return (state.value, BroadcastDelivery<Value>(sinks: [])) }
            var newValue = state.value
            transform(&newValue)
            var delivery = BroadcastDelivery<Value>(sinks: [])
            if newValue != state.value {
                state.value = newValue
                for continuation in state.subscribers.values {
                    continuation.yield(newValue)
                }
                delivery = BroadcastDelivery(sinks: state.sinks.values.filter { $0.offer(newValue) })
            }
            return (newValue, delivery)
        }
        delivery.deliver()
        return newValue
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
        let (continuations, sinks) = state.withLock { state in
            state.isFinished = true
            let continuations = Array(state.subscribers.values)
            let sinks = Array(state.sinks.values)
            state.subscribers.removeAll()
            state.sinks.removeAll()
            return (continuations, sinks)
        }
        for continuation in continuations {
            continuation.finish()
        }
        for sink in sinks { sink.cancel() }
    }

    private func removeSubscriber(_ id: Int) {
        _ = state.withLock { $0.subscribers.removeValue(forKey: id) }
    }
}
