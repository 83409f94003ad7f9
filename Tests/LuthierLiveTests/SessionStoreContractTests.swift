import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// What `SessionStore` promises, checked through the interface alone for every store in
/// `StoreBackend.all`: a session reads back exactly, an older revision never wins (also when saves
/// race), a deleted id stays dead, unused sessions and leftovers expire on their own clocks.
@Suite("SessionStore contract")
struct SessionStoreContractTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 24 * 3_600

    @Test("a full session reads back exactly as saved", arguments: StoreBackend.all)
    func readsBackExactly(backend: StoreBackend) async throws {
        let snapshot = try SessionStoreLiveTests.fullSnapshot()
        try await backend.with { clients in
            #expect(try await clients.sessions.load("nobody") == nil)
            try await clients.sessions.save("key-1", 7, snapshot)
            #expect(try await clients.sessions.load("key-1") == snapshot)
        }
    }

    @Test("only a newer revision replaces a stored one, however the saves race", arguments: StoreBackend.all)
    func newerRevisionsWin(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let sessions = clients.sessions
            let newer = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(shape: .longV), revision: 2)
            let older = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(shape: .chunky), revision: 1)
            try await sessions.save("k", 2, newer)
            try await sessions.save("k", 1, older)
            try await sessions.save("k", 2, older)
            #expect(try await sessions.load("k") == newer)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for revision in (3...30).shuffled() {
                    group.addTask {
                        try await sessions.save(
                            "k", revision, SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: revision))
                    }
                }
                try await group.waitForAll()
            }
            #expect(try await sessions.load("k")?.revision == 30)
        }
    }

    @Test("a deleted session stays deleted: a save still in flight cannot bring it back", arguments: StoreBackend.all)
    func deletedStaysDeleted(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let sessions = clients.sessions
            let snapshot = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 5)
            try await sessions.save("old-id", 5, snapshot)
            try await sessions.delete("old-id")
            #expect(try await sessions.load("old-id") == nil)
            try await sessions.save("old-id", 6, SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 6))
            #expect(try await sessions.load("old-id") == nil)
        }
    }

    @Test("unused sessions expire; anonymous leftovers sooner; loading marks one used", arguments: StoreBackend.all)
    func expiry(backend: StoreBackend) async throws {
        let now = MovableNow(Self.start)
        try await backend.with(now: now) { clients in
            let sessions = clients.sessions
            let leftover = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(color: .sky), revision: 1)
            let withCart = SessionSnapshot(
                orderKey: "o", analyticsKey: "a", cart: Cart(lines: [CartLine(guitar: .standard, quantity: 1)]),
                revision: 1)
            try await sessions.save("leftover", 1, leftover)
            try await sessions.save("cart", 1, withCart)
            try await sessions.save("loaded-later", 1, withCart)
            now.value = Self.start.addingTimeInterval(2 * Self.day)
            #expect(try await sessions.load("loaded-later") == withCart)
            // Nothing is older than a month; the leftover is older than a day.
            #expect(
                try await sessions.deleteUnused(
                    Self.start.addingTimeInterval(-30 * Self.day), Self.start.addingTimeInterval(Self.day)) == 1)
            #expect(try await sessions.load("leftover") == nil)
            #expect(try await sessions.deleteUnused(Self.start.addingTimeInterval(Self.day), .distantPast) == 1)
            #expect(try await sessions.load("cart") == nil)
            #expect(try await sessions.load("loaded-later") == withCart)
        }
    }
}

/// What `AnalyticsClient` promises, for every store in `StoreBackend.all`: the report counts
/// actions and the most added configurations, ties in a stable (byte) order.
@Suite("AnalyticsClient contract")
struct AnalyticsClientContractTests {
    @Test("the report counts actions and the most added configurations", arguments: StoreBackend.all)
    func report(backend: StoreBackend) async throws {
        try await backend.with { clients in
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
