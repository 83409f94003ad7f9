import Clocks
import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import Synchronization
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// A call on a PostgreSQL store that cannot reach its server gives up after the store's bound,
/// on the store's clock (here an immediate one: the bound passes at once, with no waiting).
@Suite struct PostgreSQLDatabaseTests {
    @Test func aCallGivesUpAfterItsBoundWithASentence() async throws {
        let location = try PostgresLocation(url: "postgres://nobody@127.0.0.1:1/none?sslmode=disable")
        let database = PostgreSQLDatabase(
            location: location, logger: .quiet, timeouts: PostgresTimeouts(call: .seconds(5)), clock: ImmediateClock())
        let store = WorkshopStore(postgres: database)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            await #expect(
                throws: SQLDatabaseError.unreachable(
                    database: "postgres://nobody@127.0.0.1:1/none", after: .seconds(5))
            ) {
                try await store.order(number: "LU-AAAAAA")
            }
            #expect(await !database.isReachable())
            #expect(
                SQLDatabaseError.unreachable(database: "postgres://x@h:1/d", after: .seconds(5)).description
                    == "The database at postgres://x@h:1/d did not answer within 5.0 seconds")
        }
    }
}

/// Two instances on one PostgreSQL schema: what one commits, the other hears (LISTEN/NOTIFY),
/// and only once it is committed. Runs when `LUTHIER_TEST_POSTGRES_URL` names a server.
@Suite(.enabled(if: StoreBackend.postgresURL != nil, "needs LUTHIER_TEST_POSTGRES_URL"))
struct PostgreSQLDatabaseChangesTests {
    @Test func anotherInstanceHearsEveryPlacedMovedAndChangedOrder() async throws {
        let url = try #require(StoreBackend.postgresURL)
        let now = MovableNow(Date(timeIntervalSince1970: 1_800_000_000))
        try await PostgresTestSchema.with(url: url, now: now) { first in
            var logger = Logger(label: "second")
            logger.logLevel = .error
            let second = first.another(now: now, logger: logger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await second.database.run() }
                defer { group.cancelAll() }
                var heard = second.database.changes().makeAsyncIterator()
                #expect(await heard.next() == .listening)

                let order = try await first.store.placeOrder(
                    OrderFixture.request(checkoutID: "elsewhere", shipping: .pickup))
                #expect(await heard.next() == .placed(number: order.number))
                // A refused order commits nothing, so nothing is heard of it.
                _ = try await first.store.adjustStock(of: .body(.koa), by: -6, note: "none left")
                await #expect(throws: OrderError.self) {
                    try await first.store.placeOrder(
                        OrderFixture.request(checkoutID: "refused", guitar: Guitar(body: .koa)))
                }
                let moved = try await first.store.advanceStages(
                    now: order.placedAt.addingTimeInterval(3_600), pace: WorkshopPace(perStage: .seconds(60)))
                #expect(moved.map(\.number) == [order.number])
                #expect(await heard.next() == .advanced(number: order.number))
                // Its own order is not told back (its floor knew it as it placed it); the next of
                // the other's is.
                _ = try await second.store.placeOrder(OrderFixture.request(checkoutID: "here"))
                let there = try await first.store.placeOrder(OrderFixture.request(checkoutID: "there"))
                #expect(await heard.next() == .placed(number: there.number))
            }
        }
    }

    /// The order's statement that takes its wood takes the workshop's lock first (no round trip
    /// of its own), and the transaction holds it to the commit: an admin's stock count waits.
    @Test func anOrderHoldsTheWorkshopsLockFromTakingItsWoodToItsCommit() async throws {
        let url = try #require(StoreBackend.postgresURL)
        let now = MovableNow(Date(timeIntervalSince1970: 1_800_000_000))
        try await PostgresTestSchema.with(url: url, now: now) { first in
            let second = first.another(now: now)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await second.database.run() }
                defer { group.cancelAll() }
                // The workshop's advisory lock, granted to another connection than the asker's.
                let held: SQLStatement = """
                    SELECT count(*) AS held FROM pg_locks
                    WHERE locktype = 'advisory' AND granted AND pid <> pg_backend_pid()
                        AND objid::bigint = (hashtextextended(current_schema() || ':' || 'workshop', 0) & 4294967295)
                    """
                let seen = Mutex<[Int]>([])
                _ = try await first.store.placeOrder(OrderFixture.request(checkoutID: "locked")) {
                    let count = try await second.database.read(held).first?.first(as: Int.self) ?? 0
                    seen.withLock { $0.append(count) }
                }
                #expect(seen.withLock { $0 } == [1])
                #expect(try await second.database.read(held).first?.first(as: Int.self) == 0)
            }
        }
    }

    @Test func twoFloorsAdvancingAtOnceMoveEachStageOnceNeverRepeatingOrSkipping() async throws {
        let url = try #require(StoreBackend.postgresURL)
        let now = MovableNow(Date(timeIntervalSince1970: 1_800_000_000))
        try await PostgresTestSchema.with(url: url, now: now) { first in
            var logger = Logger(label: "second")
            logger.logLevel = .error
            let second = first.another(now: now, logger: logger, callTimeout: .seconds(60))
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await second.database.run() }
                defer { group.cancelAll() }
                var placed: [Order] = []
                for index in 0..<6 {
                    placed.append(
                        try await first.store.placeOrder(
                            OrderFixture.request(
                                checkoutID: "floors-\(index)", shipping: index.isMultiple(of: 2) ? .pickup : .ground)))
                }
                // Both instances' floors, long after every order is due to finish, each pass racing
                // the other's, until neither moves anything.
                let late = (placed.map(\.placedAt).max() ?? now.value).addingTimeInterval(3_600)
                let pace = WorkshopPace(perStage: .seconds(60))
                let moves = try await withThrowingTaskGroup(of: [Order].self) { floors in
                    for store in [first, second] {
                        floors.addTask {
                            var moved: [Order] = []
                            while true {
                                let pass = try await store.store.advanceStages(now: late, pace: pace)
                                if pass.isEmpty { return moved }
                                moved += pass
                            }
                        }
                    }
                    return try await floors.reduce([], +)
                }
                // Wood selection to the end is four moves per order, each made by one floor only.
                #expect(moves.count == placed.count * 4)
                for order in placed {
                    let history = try await first.store.stageHistory(ofOrder: order.number).map(\.status)
                    let end: OrderStatus = order.shipping == .pickup ? .readyForPickup : .shipped
                    #expect(history == [.woodSelection, .bodyShaping, .finishing, .setup, end], "\(order.number)")
                }
            }
        }
    }

    @Test func everyChannelIsListenedToOnOneConnectionThatListensAgainWhenCut() async throws {
        let url = try #require(StoreBackend.postgresURL)
        let now = MovableNow(Date(timeIntervalSince1970: 1_800_000_000))
        try await PostgresTestSchema.with(url: url, now: now) { first in
            // Its reconnection delay passes at once on an immediate clock.
            let second = first.another(now: now, logger: .quiet, callTimeout: .seconds(60), clock: ImmediateClock())
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await second.database.run() }
                defer { group.cancelAll() }
                var changes = second.database.changes().makeAsyncIterator()
                var saves = second.database.sessionRevisions().makeAsyncIterator()
                #expect(await changes.next() == .listening)
                #expect(await saves.next() == .listening)
                // PostgreSQL wakes every connection listening in a database at each NOTIFY,
                // whatever its channel: the instance listens on one.
                let (workshop, sessions) = (second.database.channel(.workshop), second.database.channel(.sessions))
                let listening: SQLStatement = """
                    SELECT pid FROM pg_stat_activity
                    WHERE query IN ('LISTEN "' || \(workshop) || '";', 'LISTEN "' || \(sessions) || '";')
                    """
                #expect(try await first.database.read(listening).count == 1)
                // The server ends the listening connection, as a restart or a network cut would.
                try await first.database.execute(
                    """
                    SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                    WHERE query IN ('LISTEN "' || \(workshop) || '";', 'LISTEN "' || \(sessions) || '";')
                    """)
                #expect(await changes.next() == .listening)
                #expect(await saves.next() == .listening)
                let order = try await first.store.placeOrder(OrderFixture.request(checkoutID: "after-the-cut"))
                #expect(await changes.next() == .placed(number: order.number))
                let snapshot = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1)
                #expect(try await first.store.saveSession(key: "k", base: 0, snapshot: snapshot) == .saved)
                #expect(await saves.next() == .saved(StoredSessionRevision(key: "k", revision: 1)))
                #expect(try await first.database.read(listening).count == 1)
            }
        }
    }
}

/// Sessions on one PostgreSQL schema shared by two instances: every stored save and deletion is
/// told to both (LISTEN/NOTIFY), a save that stores nothing is not, and both read one session-id
/// key; a guitar being built and an instance's counters are told to the other instance, and not
/// back to their own. Runs when `LUTHIER_TEST_POSTGRES_URL` names a server.
@Suite(.enabled(if: StoreBackend.postgresURL != nil, "needs LUTHIER_TEST_POSTGRES_URL"))
struct PostgreSQLDatabaseSessionNoticeTests {
    @Test func everyStoredSaveAndDeletionIsToldAndAConflictIsNot() async throws {
        try await Self.twoInstances { first, second in
            var heard = second.database.sessionRevisions().makeAsyncIterator()
            #expect(await heard.next() == .listening)

            let one = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1)
            #expect(try await first.store.saveSession(key: "k", base: 0, snapshot: one) == .saved)
            #expect(await heard.next() == .saved(StoredSessionRevision(key: "k", revision: 1)))
            // A conflict stores nothing, so nothing is told; the next stored save is.
            #expect(try await second.store.saveSession(key: "k", base: 0, snapshot: one) == .conflict)
            var two = one
            two.revision = 2
            #expect(try await second.store.saveSession(key: "k", base: 1, snapshot: two) == .saved)
            #expect(await heard.next() == .saved(StoredSessionRevision(key: "k", revision: 2)))
            try await first.store.deleteSession(key: "k")
            let deleted = try #require(await heard.next())
            #expect(deleted == .saved(StoredSessionRevision(key: "k", revision: Int(Int64.max))))
            if case .saved(let told) = deleted { #expect(told.isDeletion) }
        }
    }

    @Test func savesWrittenTogetherAreEachToldWithTheirOwnRevisionAndAConflictIsNot() async throws {
        try await Self.twoInstances { first, second in
            var heard = second.database.sessionRevisions().makeAsyncIterator()
            #expect(await heard.next() == .listening)
            let one = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1)
            #expect(try await first.store.saveSession(key: "b", base: 0, snapshot: one) == .saved)
            #expect(await heard.next() == .saved(StoredSessionRevision(key: "b", revision: 1)))
            let saves = [("a", 0, 3), ("b", 0, 2), ("c", 0, 7)].map { key, base, revision in
                SessionSave(key: key, base: base, revision: revision, snapshot: "{}", isWorthKeeping: false)
            }
            let outcomes = try await WorkshopStore.write(saves, on: first.database, now: first.store.now)
            #expect(outcomes == [.saved, .conflict, .saved])
            var told: Set<StoredSessionRevision> = []
            for _ in 0..<2 {
                if case .saved(let revision) = try #require(await heard.next()) { told.insert(revision) }
            }
            #expect(told == [.init(key: "a", revision: 3), .init(key: "c", revision: 7)])
        }
    }

    @Test func instancesOnOneDatabaseShareOneSessionIDKey() async throws {
        try await Self.twoInstances { first, second in
            async let mine = first.database.sharedSecret(named: "session-id-key")
            async let theirs = second.database.sharedSecret(named: "session-id-key")
            let (a, b) = try await (mine, theirs)
            #expect(a.count == 32)
            #expect(a == b)
            #expect(try await first.database.sharedSecret(named: "another") != a)
        }
    }

    @Test func aBuildIsToldToTheOtherInstancesAndNotBackToItsOwn() async throws {
        try await Self.twoInstances { first, second in
            var heard = second.database.notifications(on: second.database.buildsChannel, listening: "listening") { $0 }
                .makeAsyncIterator()
            #expect(await heard.next() == "listening")
            let guitar = Guitar(shape: .chunky, color: .earth, body: .koa, fretboard: .ebony)
            try await first.database.announceBuild(guitar, from: "first")
            let payload = try #require(await heard.next())
            #expect(PostgreSQLDatabase.build(told: payload, notFrom: "second") == guitar)
            #expect(PostgreSQLDatabase.build(told: payload, notFrom: "first") == nil)
            #expect(PostgreSQLDatabase.build(told: "second not-json", notFrom: "first") == nil)
        }
    }

    @Test func anInstancesCountersAreToldToTheOthersAndNotBackToItsOwn() async throws {
        try await Self.twoInstances { first, second in
            var heard = second.database.notifications(on: second.database.countersChannel, listening: "listening") {
                $0
            }
            .makeAsyncIterator()
            #expect(await heard.next() == "listening")
            let counters = KioskCounters(guitarsInCarts: 3, liveSessions: 12)
            try await first.database.announceCounters(counters, from: "first")
            let payload = try #require(await heard.next())
            #expect(
                PostgreSQLDatabase.counters(told: payload, notFrom: "second")
                    == InstanceCounters(instance: "first", counters: counters))
            #expect(PostgreSQLDatabase.counters(told: payload, notFrom: "first") == nil)
            #expect(PostgreSQLDatabase.counters(told: "x -1 2", notFrom: "first") == nil)
        }
    }

    @Test func whenTheFloorsLeaderGoesAnotherInstanceLeadsAtItsNextTry() async throws {
        try await Self.twoInstances { first, _ in
            typealias Leader = PostgresFloorLeader<TestClock<Duration>>
            let clock = TestClock<Duration>()
            let (firstTries, firstTried) = AsyncStream<Bool>.makeStream()
            let (secondTries, secondTried) = AsyncStream<Bool>.makeStream()
            // The server ends a candidate's connection once it has been idle for the lease, in
            // real time, while this test's clock stands still between its steps: under a loaded
            // machine a few seconds passed, the follower's connection was ended, its next try
            // failed without being told, and the test waited for it for good. Here the old
            // leader goes by closing its connection, not by its lease (tested with a cut link).
            let timeouts = PostgresTimeouts(leaderLease: .seconds(3_600))
            let leader = Leader(
                location: first.database.location, logger: .quiet, clock: clock, timeouts: timeouts,
                beginTerm: { try await first.store.beginFloorTerm() }
            ) { firstTried.yield($0) }
            let other = Leader(
                location: first.database.location, logger: .quiet, clock: clock, timeouts: timeouts,
                beginTerm: { try await first.store.beginFloorTerm() }
            ) { secondTried.yield($0) }
            let leading = Task { await leader.run() }
            var leaderTries = firstTries.makeAsyncIterator()
            #expect(await leaderTries.next() == true)
            let firstTerm = try #require(try await leader.leadership.untilLeading())

            let following = Task { await other.run() }
            defer { following.cancel() }
            var otherTries = secondTries.makeAsyncIterator()
            #expect(await otherTries.next() == false)
            #expect(!other.isLeading)
            // The leader goes, and its connection with it: PostgreSQL releases the lock, and a
            // following try takes it (the first, unless the server is still closing the session).
            leading.cancel()
            await leading.value
            var tries = 0
            var taken = false
            while !taken, tries < 20 {
                // Past the retry's deadline, not onto it: when the advance comes before the
                // follower's sleep begins, `TestClock` still suspends a sleep whose deadline is
                // exactly now, and nothing would ever wake it (the test hung so, now and then).
                await clock.advance(by: Leader.retryInterval + .milliseconds(1))
                taken = await otherTries.next() == true
                tries += 1
            }
            // Required: a follower that never leads would leave the wait below waiting.
            try #require(taken)
            let secondTerm = try #require(try await other.leadership.untilLeading())
            #expect(other.isLeading)
            // A new term, and the old one's passes move nothing; the new one's move the order.
            #expect(secondTerm > firstTerm)
            let order = try await first.store.placeOrder(OrderFixture.request(checkoutID: "leader-terms"))
            let due = order.placedAt.addingTimeInterval(10)
            let ended = WorkshopStoreError.floorTermEnded(term: firstTerm.number, current: secondTerm.number)
            await #expect(throws: ended) {
                try await first.store.advanceStages(now: due, pace: .demo, term: firstTerm)
            }
            #expect(
                try await first.store.advanceStages(now: due, pace: .demo, term: secondTerm).map(\.number) == [
                    order.number
                ])
        }
    }

    /// Runs `body` with two stores on one fresh schema (two instances on one database).
    static func twoInstances(
        _ body: @Sendable (PostgresInstance, PostgresInstance) async throws -> Void
    ) async throws {
        let url = try #require(StoreBackend.postgresURL)
        let now = MovableNow(Date(timeIntervalSince1970: 1_800_000_000))
        try await PostgresTestSchema.with(url: url, now: now) { first in
            let second = first.another(now: now, logger: .quiet)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await second.database.run() }
                defer { group.cancelAll() }
                try await body(first, second)
            }
        }
    }
}
