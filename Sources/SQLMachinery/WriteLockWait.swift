import Foundation
import Synchronization

/// How the store waits for a write lock another process holds (an operator's `sqlite3`, a backup,
/// a second server on the same file): at most `limit` for all the waiting writes together, rather
/// than `limit` for each.
///
/// SQLite's own busy time-out counts per statement, and every write of the store goes through one
/// serialized writer. Behind a lock held longer than the time-out, each queued write would wait its
/// full time-out in turn: four requests took twenty seconds to be refused, and a request could be
/// carried out long after its client had given up. Here, once the lock has been held for `limit`,
/// every write that still finds it held gives up at once (its request answers 503, "try again");
/// after a quiet spell with no write finding the database locked, the next one waits a whole
/// `limit` again.
package final class WriteLockWait: Sendable {
    /// The longest the waiting writes wait for one spell of the lock, all together.
    package let limit: Duration
    /// Two busy calls further apart than this mean the lock was free in between.
    package let quietGap: Duration
    /// How long a waiting write sleeps before it tries again.
    package let pollInterval: Duration

    package let clock: Clock

    /// The time the waits are measured in. SQLite calls the busy handler on the writer's own
    /// thread and waits for its answer, so it reads the time and sleeps synchronously: the live
    /// clock blocks that thread; a test's clock moves its own time on instead, so that a test of
    /// the waits never sleeps and a loaded machine cannot change what it measures.
    package struct Clock: Sendable {
        /// The time since some fixed origin.
        var now: @Sendable () -> Duration
        /// Blocks the calling thread for the given time (the live clock) or lets it pass.
        var sleep: @Sendable (Duration) -> Void

        package init(now: @escaping @Sendable () -> Duration, sleep: @escaping @Sendable (Duration) -> Void) {
            self.now = now
            self.sleep = sleep
        }

        package static let live: Clock = {
            let origin = ContinuousClock.now
            return Clock(
                now: { origin.duration(to: .now) },
                sleep: { duration in
                    let (seconds, attoseconds) = duration.components
                    Thread.sleep(forTimeInterval: Double(seconds) + Double(attoseconds) / 1e18)
                })
        }()
    }

    private struct Spell {
        /// When a write first found the lock held.
        var since: Duration
        /// When a write last found it held.
        var last: Duration
    }

    private let spell = Mutex<Spell?>(nil)
    /// Writes that found the lock held (each counted once, however long it waited).
    private let waits = Atomic<Int>(0)

    /// How many writes have found the lock held by another connection since the store opened.
    package var waitCount: Int { waits.load(ordering: .relaxed) }

    /// `quietGap` is well above the moment it takes the writer to hand over to the next queued
    /// write (so a queue of writes behind the lock is one spell) and well below a customer's pace.
    package init(
        limit: Duration = .seconds(5), quietGap: Duration = .milliseconds(100),
        pollInterval: Duration = .milliseconds(5), clock: Clock = .live
    ) {
        self.limit = limit
        self.quietGap = quietGap
        self.pollInterval = pollInterval
        self.clock = clock
    }

    /// SQLite's busy handler (GRDB's `busyMode = .callback`): sleeps a little and says to try again,
    /// or says to give up once the current spell of the lock has lasted `limit`. `numberOfTries` is
    /// 0 on a write's first call: only then may a quiet gap start a new spell, so one write never
    /// waits much past `limit`.
    package func shouldRetry(numberOfTries: Int) -> Bool {
        if numberOfTries == 0 { waits.add(1, ordering: .relaxed) }
        let now = clock.now()
        let waited = spell.withLock { spell in
            var current = Spell(since: now, last: now)
            if let previous = spell, numberOfTries > 0 || now - previous.last < quietGap {
                current.since = previous.since
            }
            spell = current
            return now - current.since
        }
        guard waited < limit else { return false }
        clock.sleep(pollInterval)
        return true
    }
}
