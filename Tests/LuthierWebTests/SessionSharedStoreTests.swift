import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierWeb

/// Two instances of the shop on one store (two apps on one `MemorySessionStore` that tells each
/// save, as PostgreSQL's `NOTIFY` does), with one session-id key: any instance serves any request
/// of a session, and two instances changing one session at once lose nothing.
@Suite("Sessions shared by instances on one store")
struct SessionSharedStoreTests {
    static let key: [UInt8] = Array(repeating: 7, count: 32)

    /// Runs `body` with two apps on `store`, sharing the session-id key.
    static func twoInstances(
        _ store: MemorySessionStore, _ body: @Sendable (TestApp, TestApp) async throws -> Void
    ) async throws {
        try await TestApp.run(
            configure: { $0.sessionIDKey = key }, environment: { .webTest(clock: $0, sessions: store) }
        ) { first in
            try await TestApp.run(
                configure: { $0.sessionIDKey = key }, environment: { .webTest(clock: $0, sessions: store) }
            ) { second in
                try await body(first, second)
            }
        }
    }

    static func storageKey(_ cookie: String) throws -> String {
        try #require(SessionID(cookieValue: cookie)).storageKey
    }

    @Test("a change posted to one instance reaches the session's stream on another, and its pages")
    func changeReachesAnotherInstancesStream() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, second in
            // The id the first issued is adopted by the second (one key).
            let cookie = try await first.newSession()
            let stream = try await second.openEventStream(cookie: cookie)
            #expect(stream.head.status.code == 200)
            _ = try await stream.nextEvent()
            _ = try await stream.nextPatch()

            #expect(try await first.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let (_, patch) = try await stream.nextPatch()
            #expect(patch.html("guitar-description")?.hasPrefix("Sky") == true)
            #expect(second.liveSession(cookie)?.build.latestState.guitar.color == .sky)
            #expect(second.services.registry.counted.refreshed == 1)
            // The second's own page shows it too, and its next change builds on it.
            #expect(try await second.page(cookie: cookie).html.contains("Sky"))
            #expect(try await second.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            let stored = try #require(store.rows[try Self.storageKey(cookie)])
            #expect(stored.snapshot.guitar.color == .sky)
            #expect(stored.snapshot.guitar.shape == .longV)
            #expect(stored.revision == 2)
            await stream.close()
        }
    }

    @Test("a page drawn before another instance's change shows the change after it")
    func pageDrawnBeforeAnotherInstancesChange() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, second in
            let cookie = try await first.newSession()
            #expect(try await first.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            // The second draws the session's page (and remembers it), then the first changes it
            // once: the second's new shop has made as many changes of its own as the old one had.
            #expect(try await second.page(cookie: cookie).description?.hasPrefix("Natural Long V") == true)
            #expect(try await second.page(cookie: cookie).description?.hasPrefix("Natural Long V") == true)
            #expect(try await first.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            #expect(try await second.page(cookie: cookie).description?.hasPrefix("Sky Long V") == true)
        }
    }

    @Test("a request finds the session as stored even before the other instance's notice arrives")
    func requestCatchesUpBeforeTheNotice() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, _ in
            let cookie = try await first.newSession()
            #expect(try await first.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let key = try Self.storageKey(cookie)
            var elsewhere = try #require(store.rows[key]).snapshot
            elsewhere.guitar.shape = .chunky
            elsewhere.revision += 1
            store.storeUntold(key, elsewhere)
            // No notice: the page reads the stored revision first and shows the newer one.
            let page = try await first.page(cookie: cookie)
            #expect(page.html.contains("value=\"chunky\" checked"))
            // A store that cannot be read answers 503 rather than a page that may be stale.
            store.fail()
            #expect(try await first.get(cookie: cookie).status == 503)
            store.fail(false)
        }
    }

    @Test("after listening again, an instance reads again every session it holds: saves in between were not told")
    func listeningAgainRefreshesEverySession() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, _ in
            let cookie = try await first.newSession()
            #expect(try await first.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let stream = try await first.openEventStream(cookie: cookie)
            _ = try await stream.nextEvent()
            _ = try await stream.nextPatch()
            let key = try Self.storageKey(cookie)
            var elsewhere = try #require(store.rows[key]).snapshot
            elsewhere.guitar.shape = .chunky
            elsewhere.revision += 1
            store.storeUntold(key, elsewhere)
            store.listenAgain()
            let (_, patch) = try await stream.nextPatch()
            #expect(patch.html("picker-shape")?.contains("value=\"chunky\" checked") == true)
            #expect(first.liveSession(cookie)?.build.latestState.guitar.shape == .chunky)
            await stream.close()
        }
    }

    @Test("a save that meets another instance's save reads it, acts again on it, and both changes stand")
    func conflictingSavesLoseNothing() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, _ in
            let cookie = try await first.newSession()
            #expect(try await first.post("/cart/items", form: "", cookie: cookie).status == 303)
            let key = try Self.storageKey(cookie)
            let before = try #require(store.rows[key])
            // Another instance added a second guitar to the cart and stored revision 2; its
            // notification has not arrived here yet.
            var elsewhere = before.snapshot
            elsewhere.cart = Cart(lines: [
                try #require(before.snapshot.cart.lines.first), CartLine(guitar: Guitar(shape: .chunky), quantity: 1),
            ])
            elsewhere.revision = before.revision + 1
            store.storeUntold(key, elsewhere)

            // This instance still holds revision 1: the save of its next change conflicts, it
            // reads revision 2, makes the change again there, and stores revision 3.
            #expect(try await first.scriptPost(form: "shape=sharpV", cookie: cookie).status == 204)
            let merged = try #require(store.rows[key])
            #expect(merged.revision == before.revision + 2)
            #expect(merged.snapshot.cart.guitarCount == 2)
            #expect(merged.snapshot.guitar.shape == .sharpV)
            #expect(try await first.post("/cart/items", form: "", cookie: cookie).status == 303)
            let after = try #require(store.rows[key])
            #expect(after.revision == before.revision + 3)
            #expect(after.snapshot.cart.guitarCount == 3)
            #expect(Set(after.snapshot.cart.lines.map(\.guitar.shape)) == [Guitar.standard.shape, .chunky, .sharpV])
            #expect(first.liveSession(cookie)?.cart.latestState.cart.guitarCount == 3)
        }
    }

    @Test("posts racing on two instances for one session are all kept")
    func racingPostsOnTwoInstances() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, second in
            let cookie = try await first.newSession()
            #expect(try await first.post("/cart/items", form: "", cookie: cookie).status == 303)
            // The second holds the session too.
            #expect(try await second.get("/cart", cookie: cookie).status == 200)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                // Eight more of the same guitar: nine in all, within a line's limit of ten.
                for index in 0..<8 {
                    let app = index.isMultiple(of: 2) ? first : second
                    group.addTask { try await app.post("/cart/items", form: "", cookie: cookie).status }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.allSatisfy { $0 == 303 }, "\(statuses)")
            let stored = try #require(store.rows[try Self.storageKey(cookie)])
            #expect(stored.snapshot.cart.guitarCount == 9)
        }
    }

    @Test("a save another instance outruns every time is refused with 409, and the session stays as stored")
    func endlessConflictIsRefused() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, _ in
            let cookie = try await first.newSession()
            #expect(try await first.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            store.outrunEverySave()
            let refused = try await first.scriptPost(form: "shape=longV", cookie: cookie)
            #expect(refused.status == 409)
            #expect(refused.text.contains("changed in another window at the same moment"))
            let stored = try #require(store.rows[try Self.storageKey(cookie)])
            #expect(stored.revision == 1 + Session.saveAttempts)
            #expect(stored.snapshot.guitar.shape == Guitar.standard.shape)
            // What this instance holds is what is stored: the refused change is not there.
            #expect(first.liveSession(cookie)?.build.latestState.guitar == stored.snapshot.guitar)
        }
    }

    @Test("a session deleted on another instance (its id replaced after an order) leaves memory here")
    func deletionElsewhereDropsTheSession() async throws {
        let store = MemorySessionStore(shared: true)
        try await Self.twoInstances(store) { first, second in
            let cookie = try await first.newSession()
            #expect(try await first.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let stream = try await second.openEventStream(cookie: cookie)
            _ = try await stream.nextEvent()
            _ = try await stream.nextPatch()
            #expect(second.liveSession(cookie) != nil)
            try await store.client.delete(try Self.storageKey(cookie))
            // The stream ends (the browser reconnects with the cookie it has now).
            while try await stream.next() != nil {}
            #expect(second.liveSession(cookie) == nil)
        }
    }
}
