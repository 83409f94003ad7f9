import Synchronization

/// Every open event stream of the server, across sessions: one heartbeat timer wakes them all
/// (rather than a timer per connection), and its counts prove that closed streams are released.
public final class EventStreamHub: Sendable {
    private struct State {
        var heartbeat = 0
        var streams: [Int: AsyncStream<Void>.Continuation] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    public init() {}

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

    /// Marks a heartbeat due and wakes every stream.
    public func beat() {
        state.withLock { state in
            state.heartbeat += 1
            for waker in state.streams.values { waker.yield() }
        }
    }
}
