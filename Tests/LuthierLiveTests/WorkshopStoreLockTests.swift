import Foundation
import GRDB
import LuthierDomain
import Synchronization
import TestSupport
import Testing

@testable import LuthierLive
@testable import SQLMachinery

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
            let store = WorkshopStore(
                sqlite: try SQLiteDatabase(
                    path: path, migratingUpTo: nil, writeLockWait: Self.wait, lockWaitClock: clock.clock))
            let holder = try await LockHolder(path: path)

            let failures = await withTaskGroup(of: (any Error)?.self) { group in
                for index in 0..<4 {
                    group.addTask {
                        do {
                            _ = try await store.placeOrder(OrderFixture.request(checkoutID: "queued-\(index)"))
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
            #expect(try store.sqlite.rowCount(in: "orders") == 0)
            #expect(try store.sqlite.rowCount(in: "order_lines") == 0)
            #expect(try await store.stock(of: .body(.mahogany)) == 40)

            // The other connection commits its order; the store writes again at once.
            await holder.release()
            let order = try await store.placeOrder(OrderFixture.request(checkoutID: "after"))
            #expect(try await store.order(number: order.number) == order)
            #expect(try store.sqlite.rowCount(in: "orders") == 2)
            #expect(try await store.stock(of: .body(.mahogany)) == 38)
        }
    }

    @Test func aLockReleasedWithinTheWaitIsWaitedFor() async throws {
        try await withTemporaryDatabasePath { path in
            // The other connection lets go the moment the order first waits for it, on a clock
            // that moves only as the store waits: no guess at when the order gets there.
            let holder = Mutex<LockHolder?>(nil)
            let time = Mutex(Duration.zero)
            let clock = WriteLockWait.Clock(
                now: { time.withLock { $0 } },
                sleep: { duration in
                    holder.withLock { $0 }?.letGoBlocking()
                    time.withLock { $0 += duration }
                })
            let store = WorkshopStore(
                sqlite: try SQLiteDatabase(
                    path: path, migratingUpTo: nil, writeLockWait: .seconds(10), lockWaitClock: clock))
            #expect(store.sqlite.lockWaits == 0)
            let held = try await LockHolder(path: path)
            holder.withLock { $0 = held }
            let placed = try await store.placeOrder(OrderFixture.request(checkoutID: "waiting"))
            #expect(try await store.order(checkoutID: "waiting") == placed)
            // One write found the lock held, however many times it polled.
            #expect(store.sqlite.lockWaits == 1)
            await held.release()
        }
    }
}

/// A second process on the same file, as far as SQLite can tell: a connection of its own holds
/// the write lock (`BEGIN IMMEDIATE`) on a thread of its own, never one of Dispatch's or Swift
/// concurrency's, until `release()`; then it orders, as a process that finished its work would.
final class LockHolder: Sendable {
    private let other: WorkshopStore
    private let released = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let isHeld = Mutex(true)

    init(path: String) async throws {
        other = try WorkshopStore(path: path)
        let connection = try DatabaseQueue(path: path)
        let locked = DispatchSemaphore(value: 0)
        let (released, finished) = (released, finished)
        Thread.detachNewThread {
            try? connection.inDatabase { db in
                try db.execute(sql: "BEGIN IMMEDIATE")
                locked.signal()
                released.wait()
                try db.execute(sql: "ROLLBACK")
            }
            finished.signal()
        }
        guard await Self.wait(for: locked, timeout: .now() + 10) else {
            isHeld.withLock { $0 = false }
            released.signal()
            throw LockNotTaken()
        }
    }

    private struct LockNotTaken: Error {}

    deinit {
        if isHeld.withLock({ $0 }) { released.signal() }
    }

    /// Lets go of the lock, and places the holder's order once it has (once).
    func release() async {
        letGo()
        _ = await Self.wait(for: finished)
        _ = try? await other.placeOrder(OrderFixture.request(checkoutID: "holder"))
    }

    /// Lets go of the lock (once) and returns once it is gone, blocking the calling thread: for
    /// the thread of a write that waits for it (SQLite's busy handler), never a Swift concurrency one.
    func letGoBlocking() {
        letGo()
        finished.wait()
        finished.signal()  // for `release()`, which waits for it too
    }

    private func letGo() {
        let held = isHeld.withLock { held in
            defer { held = false }
            return held
        }
        if held { released.signal() }
    }

    /// Waits for `semaphore` on a thread of its own, so that no Swift concurrency thread blocks.
    private static func wait(for semaphore: DispatchSemaphore, timeout: DispatchTime = .distantFuture) async -> Bool {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread { continuation.resume(returning: semaphore.wait(timeout: timeout) == .success) }
        }
    }
}
