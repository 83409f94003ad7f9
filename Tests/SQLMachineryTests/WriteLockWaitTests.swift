import TestSupport
import Testing

@testable import SQLMachinery

/// The rule behind the store's waits for another process's write lock, on a virtual clock: one
/// spell of the lock costs the waiting writes `limit` all together, and a new spell starts only
/// after a quiet gap.
@Suite struct WriteLockWaitTests {
    static let limit = Duration.milliseconds(100)
    static let poll = Duration.milliseconds(5)

    /// Calls the busy handler as SQLite does for one write, until it gives up (or a thousand
    /// times); returns how many times it said to try again.
    static func retries(_ wait: WriteLockWait) -> Int {
        var tries = 0
        while tries < 1_000, wait.shouldRetry(numberOfTries: tries) { tries += 1 }
        return tries
    }

    @Test func oneWriteWaitsTheWholeLimitInPolls() {
        let clock = VirtualLockWaitClock()
        let wait = WriteLockWait(limit: Self.limit, pollInterval: Self.poll, clock: clock.clock)
        #expect(Self.retries(wait) == 20)
        #expect(clock.elapsed == Self.limit)
    }

    @Test func writesQueuedInTheSameSpellGiveUpAtOnce() {
        let clock = VirtualLockWaitClock()
        let wait = WriteLockWait(limit: Self.limit, pollInterval: Self.poll, clock: clock.clock)
        #expect(Self.retries(wait) == 20)
        clock.advance(by: .milliseconds(10))  // the writer hands over to the next queued write
        #expect(Self.retries(wait) == 0)
        #expect(Self.retries(wait) == 0)
        #expect(clock.elapsed == Self.limit + .milliseconds(10))
    }

    @Test func aQuietGapStartsANewSpell() {
        let clock = VirtualLockWaitClock()
        let wait = WriteLockWait(
            limit: Self.limit, quietGap: .milliseconds(100), pollInterval: Self.poll, clock: clock.clock)
        #expect(Self.retries(wait) == 20)
        clock.advance(by: .milliseconds(100))
        #expect(Self.retries(wait) == 20)
    }

    @Test func aWriteAlreadyWaitingIsNotGivenANewSpellByItsOwnPolls() {
        let clock = VirtualLockWaitClock()
        // Polls further apart than the quiet gap: still one write, one spell.
        let wait = WriteLockWait(
            limit: Self.limit, quietGap: .milliseconds(1), pollInterval: Self.poll, clock: clock.clock)
        #expect(Self.retries(wait) == 20)
        #expect(clock.elapsed == Self.limit)
    }
}
