import Synchronization

/// The clock a replay runs on: it reads what the replay sets (each step's recorded instant) and
/// never wakes a sleep, since a replay performs no work: what the live work sent back is in the
/// trace as the steps it led to.
///
/// The reducers read it when they ask for a deadline (`Effect.debounce`); nothing ever waits on it.
public final class ReplayClock: Clock, Sendable {
    public struct Instant: InstantProtocol {
        public var offset: Duration

        public func advanced(by duration: Duration) -> Self { Self(offset: offset + duration) }
        public func duration(to other: Self) -> Duration { other.offset - offset }
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))

    public init() {}

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .zero }

    /// Moves the clock to `offset` (a step's recorded instant).
    public func set(to offset: Duration) {
        current.withLock { $0 = Instant(offset: offset) }
    }

    /// A replay starts no work, so nothing should sleep; if something does, it is cancelled rather
    /// than left waiting for ever.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        throw CancellationError()
    }
}
