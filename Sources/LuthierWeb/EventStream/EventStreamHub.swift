import Synchronization

/// Every open event stream of the server, across sessions: one heartbeat timer wakes them all
/// (rather than a timer per connection), and its counts prove that closed streams are released.
///
/// The streams are split into slices by their number, and each beat wakes one slice: beating
/// `slices` times per interval reaches every stream once per interval without waking them all at
/// once (at ten thousand streams, that burst alone delayed customers' changes by a tenth of a
/// second).
public final class EventStreamHub: Sendable {
    private struct State {
        var heartbeat = 0
        var streams: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())
    /// How many beats make one round of every stream.
    public let slices: Int

    public init(slices: Int = 1) {
        self.slices = max(slices, 1)
    }

    /// Open event streams right now.
    public var openStreams: Int { state.withLock { $0.streams.count } }

    /// Increases on every heartbeat tick; a stream sends a comment when it sees a newer one.
    public var heartbeat: Int { state.withLock { $0.heartbeat } }

    func register(_ waker: AsyncStream<Void>.Continuation) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.streams[id] = waker
            return id
        }
    }

    func unregister(_ id: Int) {
        _ = state.withLock { $0.streams.removeValue(forKey: id) }
    }

    /// Marks a heartbeat due and wakes the streams of the next slice (every stream, with one).
    public func beat() {
        state.withLock { state in
            let slice = state.heartbeat % slices
            state.heartbeat += 1
            for (id, waker) in state.streams where id % slices == slice { waker.yield() }
        }
    }
}
