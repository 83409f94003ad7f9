/// The readers of a `Store`'s states, kept in the store's core under its lock, next to the one
/// copy of the state (Combine's `CurrentValueSubject`, without a second copy of the value).
///
/// A reader is an `AsyncStream` that buffers only the newest value (a `for await` loop) or a
/// callback (`BroadcastSink`). Either way a slow reader is owed only the newest value, never a
/// backlog. `offer` tells the streams at once (a yield never suspends nor calls back) and returns
/// the callbacks to call once the holder's lock is released.
struct BroadcastReaders<Value: Sendable>: Sendable {
    // Arrays searched by id rather than dictionaries: a store has a reader or two, and an empty
    // array costs nothing where a dictionary of one costs each store about 100 bytes.
    private var streams: [(id: Int, continuation: AsyncStream<Value>.Continuation)] = []
    private var sinks: [(id: Int, sink: BroadcastSink<Value>)] = []
    private var nextID = 0
    private(set) var isFinished = false

    /// Readers following now: streams and callbacks.
    var count: Int { streams.count + sinks.count }

    /// Tells every reader of `value`, the callbacks once the caller delivers.
    func offer(_ value: Value) -> BroadcastDelivery<Value> {
        guard !isFinished else { return BroadcastDelivery(sinks: []) }
        for stream in streams { stream.continuation.yield(value) }
        return BroadcastDelivery(sinks: sinks.compactMap { $0.sink.offer(value) ? $0.sink : nil })
    }

    /// Adds a stream that starts with `current`; nil (and the stream finished) once finished.
    mutating func addStream(_ continuation: AsyncStream<Value>.Continuation, current: Value) -> Int? {
        guard !isFinished else { return nil }
        defer { nextID += 1 }
        streams.append((nextID, continuation))
        continuation.yield(current)
        return nextID
    }

    /// Adds a callback offered `current`; nil once finished. The caller drains it after the lock.
    mutating func addSink(_ sink: BroadcastSink<Value>, current: Value) -> Int? {
        guard !isFinished else { return nil }
        defer { nextID += 1 }
        sinks.append((nextID, sink))
        _ = sink.offer(current)
        return nextID
    }

    mutating func remove(_ id: Int) {
        streams.removeAll { $0.id == id }
        sinks.removeAll { $0.id == id }
    }

    /// Ends every reader: returns what the caller finishes once the lock is released (finishing a
    /// stream may call its termination handler, which takes the holder's lock).
    mutating func finish() -> BroadcastEnding<Value> {
        isFinished = true
        defer {
            streams.removeAll()
            sinks.removeAll()
        }
        return BroadcastEnding(streams: streams.map(\.continuation), sinks: sinks.map(\.sink))
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
