import SQLMachinery
import Synchronization

/// A `WriteLockWait.Clock` whose time moves only when a waiting write sleeps, by what it sleeps.
package final class VirtualLockWaitClock: Sendable {
    private let time = Mutex(Duration.zero)

    package var elapsed: Duration { time.withLock { $0 } }

    package var clock: WriteLockWait.Clock {
        WriteLockWait.Clock(
            now: { self.time.withLock { $0 } },
            sleep: { duration in self.time.withLock { $0 += duration } })
    }

    package func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }

    package init() {}
}
