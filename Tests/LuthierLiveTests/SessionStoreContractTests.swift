import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// What `SessionStore` promises, checked through the interface alone for every store in
/// `StoreBackend.all`: a session reads back exactly, a save is a compare-and-set on the revision
/// (of racing saves over one revision exactly one is stored), a deleted id stays dead, unused
/// sessions and leftovers expire on their own clocks.
@Suite("SessionStore contract")
struct SessionStoreContractTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 24 * 3_600

    /// A save of a snapshot whose analytics key is `key`, as the group commit writes it.
    static func save(_ key: String, base: Int, revision: Int, replacing: String? = nil) throws -> SessionSave {
        let snapshot = SessionSnapshot(orderKey: "o", analyticsKey: key, revision: revision)
        return SessionSave(
            key: key, base: base, revision: revision,
            snapshot: String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self),
            isWorthKeeping: true, replacing: replacing)
    }

    @Test("a full session reads back exactly as saved", arguments: StoreBackend.all)
    func readsBackExactly(backend: StoreBackend) async throws {
        let snapshot = try SessionStoreLiveTests.fullSnapshot()
        try await backend.with { clients throws in
            #expect(try await clients.sessions.load("nobody") == nil)
            #expect(try await clients.sessions.save("key-1", 0, snapshot) == .saved)
            #expect(try await clients.sessions.load("key-1")?.snapshot == snapshot)
        }
    }

    @Test(
        "a save stores only over the revision its writer saw: anything else is a conflict", arguments: StoreBackend.all)
    func saveIsCompareAndSet(backend: StoreBackend) async throws {
        try await backend.with { clients throws in
            let sessions = clients.sessions
            let first = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(shape: .longV), revision: 1)
            let second = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(shape: .chunky), revision: 2)
            let elsewhere = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(color: .dusk), revision: 2)
            #expect(try await sessions.save("k", 0, first) == .saved)
            // A second "new" session under the same key (another instance adopted it first).
            #expect(try await sessions.save("k", 0, elsewhere) == .conflict)
            #expect(try await sessions.save("k", 1, second) == .saved)
            // Another writer that still saw revision 1 stores nothing.
            #expect(try await sessions.save("k", 1, elsewhere) == .conflict)
            // Nor does one from the future.
            #expect(try await sessions.save("k", 3, elsewhere) == .conflict)
            #expect(try await sessions.load("k")?.snapshot == second)
        }
    }

    @Test(
        "saves written together are each a compare-and-set of their own, and each stored one reads back",
        arguments: StoreBackend.all)
    func savesWrittenTogether(backend: StoreBackend) async throws {
        try await backend.with { clients throws in
            let store = clients.store
            let stored = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1)
            #expect(try await clients.sessions.save("old", 0, stored) == .saved)
            // A new session, one over the revision stored, and one whose key holds nothing yet
            // (stored whatever its writer saw, as a lone save is).
            let outcomes = try await WorkshopStore.write(
                [
                    try Self.save("new", base: 0, revision: 1), try Self.save("old", base: 1, revision: 2),
                    try Self.save("elsewhere", base: 4, revision: 5),
                ],
                on: store.database, now: store.now)
            #expect(outcomes == [.saved, .saved, .saved])
            // One over a revision no longer stored, beside one over the revision stored.
            let again = try await WorkshopStore.write(
                [try Self.save("old", base: 1, revision: 3), try Self.save("new", base: 1, revision: 2)],
                on: store.database, now: store.now)
            #expect(again == [.conflict, .saved])
            // One key twice (never from one session, which saves in its turn): one after the other.
            let twice = try await WorkshopStore.write(
                [
                    try Self.save("new", base: 2, revision: 3), try Self.save("other", base: 0, revision: 1),
                    try Self.save("new", base: 3, revision: 4),
                ],
                on: store.database, now: store.now)
            #expect(twice == [.saved, .saved, .saved])
            #expect(try await clients.sessions.load("new")?.snapshot?.revision == 4)
            #expect(try await clients.sessions.load("old")?.snapshot?.revision == 2)
            #expect(try await clients.sessions.load("new")?.snapshot?.analyticsKey == "new")
        }
    }

    @Test("of saves racing over one revision, exactly one is stored", arguments: StoreBackend.all)
    func racingSavesOneWins(backend: StoreBackend) async throws {
        try await backend.with { clients throws in
            let sessions = clients.sessions
            #expect(
                try await sessions.save("k", 0, SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1))
                    == .saved)
            let outcomes = try await withThrowingTaskGroup(of: (Int, SessionSaveOutcome).self) { group in
                for writer in 0..<12 {
                    group.addTask {
                        let snapshot = SessionSnapshot(
                            orderKey: "o", analyticsKey: "writer-\(writer)", revision: 2)
                        return (writer, try await sessions.save("k", 1, snapshot))
                    }
                }
                return try await group.reduce(into: [:]) { $0[$1.0] = $1.1 }
            }
            let winners = outcomes.filter { $0.value == .saved }.map(\.key)
            #expect(winners.count == 1)
            #expect(try await sessions.load("k")?.snapshot?.analyticsKey == winners.first.map { "writer-\($0)" })
        }
    }

    @Test("a deleted session stays deleted: a save still in flight cannot bring it back", arguments: StoreBackend.all)
    func deletedStaysDeleted(backend: StoreBackend) async throws {
        try await backend.with { clients throws in
            let sessions = clients.sessions
            let snapshot = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 5)
            #expect(try await sessions.save("old-id", 0, snapshot) == .saved)
            try await sessions.delete("old-id")
            #expect(try await sessions.load("old-id") == .replaced)
            let later = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 6)
            #expect(try await sessions.save("old-id", 5, later) == .conflict)
            #expect(try await sessions.save("old-id", 0, later) == .conflict)
            #expect(try await sessions.load("old-id") == .replaced)
        }
    }

    @Test(
        "a session moved to a new key is stored there and deleted under the old in one statement, beside other saves",
        arguments: StoreBackend.all)
    func replacedInOneWrite(backend: StoreBackend) async throws {
        try await backend.with { clients throws in
            let sessions = clients.sessions
            let ordered = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(color: .sky), revision: 7)
            #expect(try await sessions.save("old-id", 0, ordered) == .saved)
            let moved = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(color: .sky), revision: 1)
            #expect(try await sessions.replace("old-id", "new-id", moved) == .saved)
            #expect(try await sessions.load("old-id") == .replaced)
            #expect(try await sessions.load("new-id")?.snapshot == moved)
            // A save of the old id still in flight cannot bring it back.
            #expect(try await sessions.save("old-id", 7, ordered) == .conflict)
            #expect(try await sessions.load("old-id") == .replaced)

            // In one statement with another session's save, each as it would be alone.
            let store = clients.store
            #expect(try await sessions.save("other", 0, ordered) == .saved)
            let outcomes = try await WorkshopStore.write(
                [
                    try Self.save("other", base: 7, revision: 8),
                    try Self.save("newer-id", base: 0, revision: 1, replacing: "new-id"),
                ],
                on: store.database, now: store.now)
            #expect(outcomes == [.saved, .saved])
            #expect(try await sessions.load("new-id") == .replaced)
            #expect(try await sessions.load("newer-id")?.snapshot?.analyticsKey == "newer-id")
            #expect(try await sessions.load("other")?.snapshot?.revision == 8)
        }
    }

    @Test("unused sessions expire; anonymous leftovers sooner; loading marks one used", arguments: StoreBackend.all)
    func expiry(backend: StoreBackend) async throws {
        let now = MovableNow(Self.start)
        try await backend.with(now: now) { clients throws in
            let sessions = clients.sessions
            let leftover = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(color: .sky), revision: 1)
            let withCart = SessionSnapshot(
                orderKey: "o", analyticsKey: "a", cart: Cart(lines: [CartLine(guitar: .standard, quantity: 1)]),
                revision: 1)
            #expect(try await sessions.save("leftover", 0, leftover) == .saved)
            #expect(try await sessions.save("cart", 0, withCart) == .saved)
            #expect(try await sessions.save("loaded-later", 0, withCart) == .saved)
            now.value = Self.start.addingTimeInterval(2 * Self.day)
            #expect(try await sessions.load("loaded-later")?.snapshot == withCart)
            // Nothing is older than a month; the leftover is older than a day.
            #expect(
                try await sessions.deleteUnused(
                    Self.start.addingTimeInterval(-30 * Self.day), Self.start.addingTimeInterval(Self.day)) == 1)
            #expect(try await sessions.load("leftover") == nil)
            #expect(try await sessions.deleteUnused(Self.start.addingTimeInterval(Self.day), .distantPast) == 1)
            #expect(try await sessions.load("cart") == nil)
            #expect(try await sessions.load("loaded-later")?.snapshot == withCart)
        }
    }
}

/// What `AnalyticsClient` promises, for every store in `StoreBackend.all`: the report counts
/// actions and the most added configurations, ties in a stable (byte) order.
@Suite("AnalyticsClient contract")
struct AnalyticsClientContractTests {
    @Test("the report counts actions and the most added configurations", arguments: StoreBackend.all)
    func report(backend: StoreBackend) async throws {
        try await backend.with { clients throws in
            let analytics = clients.analytics
            try await analytics.record(Array(AnalyticsClientLiveTests.history.prefix(4)))
            try await analytics.record(Array(AnalyticsClientLiveTests.history.dropFirst(4)))
            try await analytics.record([])
            let report = try await analytics.report(10)
            #expect(report.totalEvents == 10)
            #expect(report.actions.map(\.action) == ["add", "increment", "clear", "decrement", "remove"])
            #expect(report.actions.map(\.count) == [4, 3, 1, 1, 1])
            #expect(
                report.mostAdded == [
                    .init(configuration: AnalyticsClientLiveTests.casual, added: 2),
                    .init(configuration: AnalyticsClientLiveTests.chunky, added: 2),
                    .init(configuration: AnalyticsClientLiveTests.longV, added: 2),
                    .init(configuration: AnalyticsClientLiveTests.sharpV, added: 1),
                ])
            #expect(try await analytics.report(2).mostAdded.count == 2)
        }
    }
}
