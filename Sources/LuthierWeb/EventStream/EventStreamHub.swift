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
    /// Event streams open at once at most, in all and for one session; more are answered 503.
    public let maxStreams: Int
    public let maxStreamsPerSession: Int

    public init(slices: Int = 1, maxStreams: Int = .max, maxStreamsPerSession: Int = .max) {
        self.slices = max(slices, 1)
        self.maxStreams = max(maxStreams, 1)
        self.maxStreamsPerSession = max(maxStreamsPerSession, 1)
    }

    /// Why a new stream may not open now (nil when it may): the server, or the session's tabs,
    /// already hold as many streams as allowed. Checked before opening, so the cap may be passed
    /// by the few streams opening at the same instant, never by more.
    func refusal(sessionStreams: Int? = nil) -> UserFacingError? {
        if openStreams >= maxStreams {
            return UserFacingError(
                .serviceUnavailable, "Too many live pages are open right now; this one will reconnect shortly.",
                retryAfter: 10)
        }
        if let sessionStreams, sessionStreams >= maxStreamsPerSession {
            return UserFacingError(
                .serviceUnavailable,
                "This browser has \(sessionStreams) live pages of the shop open, the most allowed; close one to "
                    + "follow this one live.",
                retryAfter: 30)
        }
        return nil
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
