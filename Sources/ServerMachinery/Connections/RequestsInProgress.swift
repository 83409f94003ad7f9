import Logging
import Synchronization

/// The requests the server has taken in and not yet answered, shared by every connection's
/// ``RequestAdmission``, with a cap past which a request is refused at once.
///
/// Past its ceiling a server that takes every request in only makes each one wait longer: the
/// work queues in the task pool, the pool runs behind, the task that accepts connections runs
/// behind with it, the kernel's listen queue fills, and new clients' connects time out (at 3,000
/// changes a second on this project's machine, most did). Refusing at the cap on the event loop,
/// before any task is started, keeps the pool's queue short: what is admitted is answered in good
/// time, what is not gets `503` with `Retry-After` at once, and connections keep being accepted.
///
/// A request counts from its last byte until its answer's head is written (an event stream's
/// answer never ends, but its head goes out at once), or until its connection closes. Not from
/// its head: a client sending bodies slowly on purpose would then hold every place with a few
/// hundred connections and shut everyone else out; waiting for a body costs the server nothing
/// (the connection's body time-out bounds it).
public final class RequestsInProgress: Sendable {
    /// Requests in progress past which a new request's head is answered `503`. Requests whose
    /// heads came while there was room still count once whole, so a burst of them may take the
    /// count a little past it; no place is held for a body that has not come.
    public let limit: Int
    private let count = WatchedCount()
    private let refusals = Atomic<Int>(0)
    /// Refusals since the last request admitted: an episode of refusals is logged when it starts
    /// and when it ends, not once per request (a flood would otherwise flood the log too).
    private let refusalsInEpisode = Atomic<Int>(0)
    private let logger: Logger

    public init(limit: Int, logger: Logger = Logger(label: "luthier.connections")) {
        self.limit = max(limit, 1)
        self.logger = logger
    }

    /// Requests in progress right now.
    public var current: Int { count.value }

    /// Returns once the requests in progress meet `condition` (false if the task is cancelled
    /// first): a test knows the server has taken a request in without looking again and again.
    public func untilCurrent(_ condition: @escaping @Sendable (Int) -> Bool) async -> Bool {
        await count.waitUntil(condition)
    }
    /// Requests refused at the cap since the start.
    public var refused: Int { refusals.load(ordering: .relaxed) }

    /// Whether a request may be taken in now; false (counted as a refusal) when the cap is
    /// reached. A request taken in is counted once it is whole (``countWhole()``).
    package func admits() -> Bool {
        guard count.value >= limit else {
            if refusalsInEpisode.load(ordering: .relaxed) > 0 {
                let refused = refusalsInEpisode.exchange(0, ordering: .relaxed)
                if refused > 0 { logger.notice("Taking requests again after refusing \(refused) at the cap") }
            }
            return true
        }
        refusals.wrappingAdd(1, ordering: .relaxed)
        if refusalsInEpisode.wrappingAdd(1, ordering: .relaxed).oldValue == 0 {
            logger.warning("Refusing requests with 503: \(limit) in progress, the cap")
        }
        return false
    }

    /// Counts in a request taken in whose last byte has come: from now on it is the server's work.
    package func countWhole() {
        count.add(1)
    }

    /// Counts `requests` out: their answers have begun, or their connection closed.
    package func release(_ requests: Int = 1) {
        count.add(-requests)
    }
}
