import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierLive

/// Another connection holding the write lock (a second process on the file, an operator's sqlite3
/// in a transaction): the store's writes wait for it at most `writeLockWait` all together, then give
/// up at once, instead of each waiting its own time-out in turn behind the one writer.
@Suite struct WorkshopStoreLockTests {
    static let wait = Duration.milliseconds(600)

    @Test func writesQueuedBehindAHeldLockGiveUpTogetherWithinOneWait() async throws {
        try await withTemporaryDatabasePath { path in
            // The waits are measured on a clock that moves only as the store waits: what it shows is
            // the store's own waiting, however busy the machine.
            let clock = VirtualLockWaitClock()
            let store = try WorkshopStore(
                path: path, migratingUpTo: nil, writeLockWait: Self.wait, lockWaitClock: clock.clock)
            let holder = try LockHolder(path: path)

            let failures = await withTaskGroup(of: (any Error)?.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        do {
                            _ = try await store.placeOrderAsync(OrderFixture.request(checkoutID: "queued-\(index)"))
                            return nil
                        } catch {
                            return error
                        }
                    }
                }
                return await group.reduce(into: [(any Error)?]()) { $0.append($1) }
            }
            let took = clock.elapsed

            #expect(failures.allSatisfy { $0 != nil && !($0 is OrderError) }, "\(failures)")
            // One wait for all four (each waiting in turn would take four).
            #expect(took >= Self.wait)
            #expect(took < Self.wait + .milliseconds(50), "\(took)")
            #expect(try store.rowCount(in: "orders") == 0)
            #expect(try store.rowCount(in: "order_lines") == 0)
            #expect(try store.stock(of: .body(.mahogany)) == 40)

            // The other connection commits its order; the store writes again at once.
            holder.release()
            let order = try await store.placeOrderAsync(OrderFixture.request(checkoutID: "after"))
            #expect(try store.order(number: order.number) == order)
            #expect(try store.rowCount(in: "orders") == 2)
            #expect(try store.stock(of: .body(.mahogany)) == 38)
        }
    }

    @Test func aLockReleasedWithinTheWaitIsWaitedFor() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path, migratingUpTo: nil, writeLockWait: .seconds(10))
            #expect(store.lockWaits == 0)
            let holder = try LockHolder(path: path)
            let order = Task { try await store.placeOrderAsync(OrderFixture.request(checkoutID: "waiting")) }
            try await Task.sleep(for: .milliseconds(200))  // the other connection's work
            holder.release()
            let placed = try await order.value
            #expect(try store.order(checkoutID: "waiting") == placed)
            // One write found the lock held, however many times it polled.
            #expect(store.lockWaits == 1)
        }
    }
}

/// A `WriteLockWait.Clock` whose time moves only when a waiting write sleeps, by what it sleeps.
final class VirtualLockWaitClock: Sendable {
    private let time = Mutex(Duration.zero)

    var elapsed: Duration { time.withLock { $0 } }

    var clock: WriteLockWait.Clock {
        WriteLockWait.Clock(
            now: { self.time.withLock { $0 } },
            sleep: { duration in self.time.withLock { $0 += duration } })
    }

    func advance(by duration: Duration) {
        time.withLock { $0 += duration }
    }
}

/// A second store on the same file, in the middle of an order transaction it does not commit
/// until `release()`: it holds SQLite's write lock on a thread of its own meanwhile.
final class LockHolder: Sendable {
    private let released = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let isHeld = Mutex(true)

    init(path: String) throws {
        let other = try WorkshopStore(path: path)
        let locked = DispatchSemaphore(value: 0)
        let released = released
        let finished = finished
        Thread.detachNewThread {
            _ = try? other.placeOrder(OrderFixture.request(checkoutID: "holder")) {
                locked.signal()
                released.wait()
            }
            finished.signal()
        }
        guard locked.wait(timeout: .now() + 10) == .success else {
            isHeld.withLock { $0 = false }
            throw LockNotTaken()
        }
    }

    private struct LockNotTaken: Error {}

    deinit {
        release()
    }

    /// Lets the holder commit, and waits until it has (once).
    func release() {
        let held = isHeld.withLock { held in
            defer { held = false }
            return held
        }
        guard held else { return }
        released.signal()
        finished.wait()
    }
}
