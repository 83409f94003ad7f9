/// The readers of a `Store`'s states, kept in the store's core under its lock, next to the one
/// copy of the state (Combine's `CurrentValueSubject`, without a second copy of the value).
///
/// A reader is an `AsyncStream` that buffers only the newest value (a `for await` loop) or a
/// callback (`BroadcastSink`). Either way a slow reader is owed only the newest value, never a
/// backlog. `offer` tells the streams at once (a yield never suspends nor calls back) and returns
/// the callbacks to call once the holder's lock is released.
struct BroadcastReaders<Value: Sendable>: Sendable {
    private var streams: [Int: AsyncStream<Value>.Continuation] = [:]
    private var sinks: [Int: BroadcastSink<Value>] = [:]
    private var nextID = 0
    private(set) var isFinished = false

    /// Readers following now: streams and callbacks.
    var count: Int { streams.count + sinks.count }

    /// Tells every reader of `value`, the callbacks once the caller delivers.
    func offer(_ value: Value) -> BroadcastDelivery<Value> {
        guard !isFinished else { return BroadcastDelivery(sinks: []) }
        for continuation in streams.values { continuation.yield(value) }
        return BroadcastDelivery(sinks: sinks.values.filter { $0.offer(value) })
    }

    /// Adds a stream that starts with `current`; nil (and the stream finished) once finished.
    mutating func addStream(_ continuation: AsyncStream<Value>.Continuation, current: Value) -> Int? {
        guard !isFinished else { return nil }
        defer { nextID += 1 }
        streams[nextID] = continuation
        continuation.yield(current)
        return nextID
    }

    /// Adds a callback offered `current`; nil once finished. The caller drains it after the lock.
    mutating func addSink(_ sink: BroadcastSink<Value>, current: Value) -> Int? {
        guard !isFinished else { return nil }
        defer { nextID += 1 }
        sinks[nextID] = sink
        _ = sink.offer(current)
        return nextID
    }

    mutating func remove(_ id: Int) {
        streams[id] = nil
        sinks[id] = nil
    }

    /// Ends every reader: returns what the caller finishes once the lock is released (finishing a
    /// stream may call its termination handler, which takes the holder's lock).
    mutating func finish() -> BroadcastEnding<Value> {
        isFinished = true
        defer {
            streams.removeAll()
            sinks.removeAll()
        }
        return BroadcastEnding(streams: Array(streams.values), sinks: Array(sinks.values))
    }
}

/// The readers a finished broadcast still has to end, once the locks are released.
struct BroadcastEnding<Value: Sendable> {
    let streams: [AsyncStream<Value>.Continuation]
    let sinks: [BroadcastSink<Value>]

    func end() {
        for stream in streams { stream.finish() }
        for sink in sinks { sink.cancel() }
    }
}
