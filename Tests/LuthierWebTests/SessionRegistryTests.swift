import Clocks
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierWeb

@Suite("SessionRegistry")
struct SessionRegistryTests {
    @Test("at the cap the least recently used session without a page makes room; a returning customer is restored")
    func capMakesRoom() async throws {
        try await TestApp.run(configure: { $0.maxSessions = 2 }) { app in
            let customer = try await app.newSession()
            #expect(try await app.scriptPost(form: "shape=longV", cookie: customer).status == 204)
            let other = try await app.newSession()
            // A flood of cookie-less pages costs no session at all...
            for index in 0..<20 {
                let forged = index.isMultiple(of: 2) ? nil : String(repeating: "b", count: 64)
                #expect(try await app.get(cookie: forged).status == 200)
            }
            #expect(app.liveSession(customer) != nil)
            // ...and a flood of cookie-less posts makes room by the least recently used.
            for _ in 0..<20 {
                #expect(try await app.scriptPost(form: "color=dusk", cookie: nil).status == 204)
            }
            #expect(app.services.registry.count == 2)
            #expect(app.liveSession(customer) == nil)
            #expect(app.liveSession(other) == nil)

            // The customer comes back: restored from the store with the same cookie and guitar.
            let back = try await app.get(cookie: customer)
            #expect(back.status == 200)
            #expect(back.headers["Set-Cookie"].isEmpty)
            #expect(BuilderPageSnapshot(html: back.text).checkedValues["shape"] == ["longV"])
            #expect(app.liveSession(customer) != nil)
            #expect(app.services.registry.count == 2)
            #expect(app.services.registry.counted.restored == 1)
        }
    }

    @Test("only when every session in memory has a page open is a newcomer refused: 503 with Retry-After")
    func capWithOpenPages() async throws {
        try await TestApp.run(configure: { $0.maxSessions = 2 }) { app in
            let first = try await app.newSession()
            let second = try await app.newSession()
            let firstStream = try await app.openEventStream(cookie: first)
            let secondStream = try await app.openEventStream(cookie: second)
            _ = try await firstStream.nextEvent()
            _ = try await secondStream.nextEvent()

            // A newcomer's page costs no session, so it is served...
            let third = try await app.get()
            #expect(third.status == 200)
            let issued = try #require(SetCookie(third)).value
            // ...but its first act finds no room.
            let thirdPost = try await app.scriptPost(form: "shape=longV", cookie: issued)
            #expect(thirdPost.status == 503)
            #expect(thirdPost.header("Retry-After") == "60")
            #expect(thirdPost.text.contains("try again"))
            #expect(thirdPost.headers["Set-Cookie"].isEmpty)
            #expect(try await app.get("/events", cookie: issued).status == 503)
            #expect(app.services.registry.counted.refusedFull == 2)

            let browser = try await app.post(form: "shape=longV", headers: [("Accept", "text/html")])
            #expect(browser.status == 503)
            #expect(browser.header("Content-Type") == "text/html; charset=utf-8")
            #expect(browser.text.contains("data-status=\"503\""))

            #expect(app.services.registry.count == 2)
            #expect(try await app.scriptPost(form: "shape=longV", cookie: first).status == 204)
            #expect(try await app.page(cookie: first).checkedValues["shape"] == ["longV"])
            await firstStream.close()
            await secondStream.close()
        }
    }

    @Test("a session costs nothing until it acts: pages make none; a post or a stream makes it under the issued id")
    func sessionsCostNothingUntilTheyAct() async throws {
        try await TestApp.run(configure: { $0.maxSessions = 3 }) { app in
            var issued: Set<String> = []
            for _ in 0..<200 {
                let page = try await app.get()
                #expect(page.status == 200)
                issued.insert(try #require(SetCookie(page)).value)
            }
            #expect(issued.count == 200)
            #expect(app.services.registry.count == 0)

            // An issued id's first stream makes its session, under that id.
            let first = try #require(issued.first)
            let stream = try await app.openEventStream(cookie: first)
            #expect(stream.head.status == .ok)
            #expect(app.liveSession(first) != nil)
            await stream.close()
            // A well-formed id the server did not issue is never adopted.
            let forged = String(repeating: "c", count: 64)
            #expect(try await app.get("/events", cookie: forged).status == 403)
            let post = try await app.scriptPost(form: "color=sky", cookie: forged)
            #expect(try #require(SetCookie(post)).value != forged)
            #expect(app.liveSession(forged) == nil)
        }
    }

    @Test("idle sessions are dropped by the sweep")
    func idleSweep() async throws {
        try await TestApp.run(configure: {
            $0.maxSessions = 1
            $0.sessionIdleTimeout = .seconds(60)
        }) { app in
            _ = try await app.newSession()
            #expect(app.services.registry.count == 1)
            try await app.advance(by: .seconds(75))
            #expect(app.services.registry.count == 0)
            #expect(try await app.get().status == 200)
        }
    }

    @Test("the registry finds only ids it issued, and only while they live")
    func lookUp() async throws {
        let renderer = try await PageRenderer(
            directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
        let registry = SessionRegistry(maxSessions: 2, renderer: renderer, environment: .webTest(clock: TestClock()))
        let session = try registry.createSession()
        #expect(try await registry.session(forCookie: session.id.cookieValue) === session)
        #expect(try await registry.session(forCookie: nil) == nil)
        #expect(try await registry.session(forCookie: session.id.cookieValue.uppercased()) == nil)
        #expect(try await registry.session(forCookie: String(session.id.cookieValue.dropLast())) == nil)
        #expect(try await registry.session(forCookie: SessionID.random().cookieValue) == nil)
        let other = try registry.createSession()
        #expect(other.id != session.id)
        // At the cap the least recently used goes: the first, unless it was used since.
        _ = registry.live(session.id)
        let third = try registry.createSession()
        #expect(registry.count == 2)
        #expect(registry.live(other.id) == nil)
        #expect(registry.live(session.id) === session)
        // With a page open on every one, a newcomer is refused.
        session.streamOpened()
        third.streamOpened()
        #expect(throws: SessionRegistry.Failure.full) { try registry.createSession() }
        #expect(registry.count == 2)
        session.streamClosed()
        third.streamClosed()
    }

    static func registry(
        sessions: MemorySessionStore, maxSessions: Int = 10
    ) async throws -> SessionRegistry {
        let renderer = try await PageRenderer(
            directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
        return SessionRegistry(
            maxSessions: maxSessions, renderer: renderer,
            environment: .webTest(clock: TestClock(), sessions: sessions))
    }

    @Test("a stored session comes back by its cookie in a new registry (a restart), with its keys, guitar and cart")
    func restore() async throws {
        let store = MemorySessionStore()
        let first = try await Self.registry(sessions: store)
        let session = try first.createSession()
        await session.build.send(.change(GuitarChange(shape: .sharpV, color: .sky)))
        try await session.cart.send(.add(Guitar(shape: .longV)))
        try await session.cart.send(.add(Guitar(shape: .longV)))
        try await session.save()
        first.closeAll()

        let second = try await Self.registry(sessions: store)
        #expect(second.count == 0)
        let restored = try #require(try await second.session(forCookie: session.id.cookieValue))
        #expect(restored.id == session.id)
        #expect(restored.orderKey == session.orderKey)
        #expect(restored.shop.analyticsKey == session.shop.analyticsKey)
        #expect(restored.build.currentOutput.guitar == Guitar(shape: .sharpV, color: .sky))
        #expect(restored.cart.currentOutput.guitarCount == 2)
        #expect(second.count == 1)
        #expect(try await second.session(forCookie: session.id.cookieValue) === restored)
        #expect(try await second.session(forCookie: SessionID.random().cookieValue) == nil)
        second.closeAll()
    }

    @Test("a notice of the old id's save, heard after an order gave the session a new id, reads nothing")
    func noticeOfTheReplacedID() async throws {
        let store = MemorySessionStore(shared: true)
        let registry = try await Self.registry(sessions: store)
        let session = try registry.createSession()
        for color in [Color.sky, .dusk, .earth] {
            await session.build.send(.change(GuitarChange(color: color)))
            try await session.save()
        }
        let old = session.id
        #expect(store.rows[old.storageKey]?.revision == 3)
        let new = try #require(try await registry.rotate(session, once: "an order"))
        #expect(store.rows[new.storageKey]?.revision == 1)
        // The old id's last save, told late (its notice raced the rotation): not this session's
        // any more, so nothing is read, and the session stays as it is.
        let loads = store.loads
        #expect(try await session.refresh(toRevision: 3, of: old))
        #expect(store.loads == loads)
        #expect(session.id == new)
        #expect(session.build.currentOutput.guitar.color == .earth)
        registry.closeAll()
    }

    @Test("an order's new id is stored and the old one deleted in one write")
    func rotationIsOneWrite() async throws {
        let store = MemorySessionStore()
        let registry = try await Self.registry(sessions: store)
        let session = try registry.createSession()
        await session.build.send(.change(GuitarChange(color: .sky)))
        try await session.save()
        let old = session.id
        let writes = store.writes
        let new = try #require(try await registry.rotate(session, once: "an order"))
        #expect(store.writes == writes + 1)
        #expect(store.rows[old.storageKey] == nil)
        #expect(store.rows[new.storageKey]?.snapshot.guitar.color == .sky)
        registry.closeAll()
        // Another instance (or a restart) knows the new id only.
        let other = try await Self.registry(sessions: store)
        await #expect(throws: SessionRegistry.Failure.replaced) {
            try await other.session(forCookie: old.cookieValue)
        }
        #expect(try await other.session(forCookie: new.cookieValue) != nil)
        other.closeAll()
    }

    @Test("the store is keyed by the SHA-256 of the id, never the cookie value itself")
    func storageKey() async throws {
        let store = MemorySessionStore()
        let registry = try await Self.registry(sessions: store)
        let session = try registry.createSession()
        await session.build.send(.change(GuitarChange(color: .sky)))
        try await session.save()
        #expect(Array(store.rows.keys) == [session.id.storageKey])
        #expect(session.id.storageKey != session.id.cookieValue)
        #expect(session.id.storageKey.utf8.count == 64)
        // SHA-256 of 64 "a"s, as `sha256sum` gives it, to pin the digest and its hex down.
        let known = try #require(SessionID(cookieValue: String(repeating: "a", count: 64)))
        #expect(known.storageKey == "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb")
        registry.closeAll()
    }

    @Test("concurrent requests with one cookie restore the session once")
    func singleFlightRestore() async throws {
        let store = MemorySessionStore()
        let first = try await Self.registry(sessions: store)
        let session = try first.createSession()
        await session.build.send(.change(GuitarChange(color: .sky)))
        try await session.save()
        first.closeAll()
        let second = try await Self.registry(sessions: store)
        let found = try await withThrowingTaskGroup(of: Session?.self) { group in
            for _ in 0..<20 { group.addTask { try await second.session(forCookie: session.id.cookieValue) } }
            var found: [Session] = []
            for try await session in group { if let session { found.append(session) } }
            return found
        }
        #expect(found.count == 20)
        #expect(Set(found.map { ObjectIdentifier($0) }).count == 1)
        #expect(second.count == 1)
        #expect(second.counted == SessionRegistry.Tallies(restored: 1))
        second.closeAll()
    }

    @Test("a store that cannot be read refuses the request rather than making up a new session")
    func storeDown() async throws {
        let store = MemorySessionStore()
        let registry = try await Self.registry(sessions: store)
        store.fail()
        await #expect(throws: SessionRegistry.Failure.storeUnavailable) {
            try await registry.session(forCookie: SessionID.random().cookieValue)
        }
        #expect(registry.count == 0)
        #expect(registry.counted == SessionRegistry.Tallies(refusedStoreUnavailable: 1))
        registry.closeAll()
    }

    @Test("session ids are 64 lowercase hex digits and distinct")
    func sessionIDs() {
        var seen: Set<String> = []
        for _ in 0..<1_000 {
            let id = SessionID.random()
            #expect(SessionID(cookieValue: id.cookieValue) == id)
            #expect(id.cookieValue.utf8.count == 64)
            seen.insert(id.cookieValue)
        }
        #expect(seen.count == 1_000)
        #expect(SessionID(cookieValue: String(repeating: "F", count: 64)) == nil)
        #expect(SessionID(cookieValue: String(repeating: "f", count: 64)) != nil)
        #expect(SessionID(cookieValue: "") == nil)
    }
}

/// A session id is a secret: it prints redacted however it is printed, and is read only as
/// `cookieValue`.
@Suite struct SessionIDRedactionTests {
    @Test func aSessionIDNeverPrintsItsSecret() {
        let id = SessionID.random()
        let secret = id.cookieValue
        #expect(secret.count == 64)
        var dumped = ""
        dump(id, to: &dumped)
        for printed in ["\(id)", String(describing: id), String(reflecting: id), dumped, "\([id])"] {
            #expect(!printed.contains(secret), "\(printed)")
            #expect(printed.contains("SessionID"), "\(printed)")
        }
        #expect(SessionID(cookieValue: secret) == id)
    }
}

/// A session id is read from a cookie in exactly the shape the server issues, and kept as its
/// bits: every live session holds one.
@Suite struct SessionIDShapeTests {
    @Test func anIDReadsBackAsTheDigitsItWasReadFrom() throws {
        let digits = "0123456789abcdef" + "fedcba9876543210" + "00000000000000ff" + "ffffffffffffffff"
        let id = try #require(SessionID(cookieValue: digits))
        #expect(id.cookieValue == digits)
        #expect(SessionID(cookieValue: id.cookieValue) == id)
        #expect(SessionID(cookieValue: String(repeating: "0", count: 64)) != id)
    }

    @Test(arguments: [
        "", String(repeating: "a", count: 63), String(repeating: "a", count: 65), String(repeating: "A", count: 64),
        String(repeating: "g", count: 64), "+" + String(repeating: "a", count: 63),
        String(repeating: "a", count: 63) + "\u{e9}",
    ])
    func anythingElseIsNotASessionID(cookie: String) {
        #expect(SessionID(cookieValue: cookie) == nil)
    }

    @Test func anIDsBytesAreItsDigitsInTheCookiesOrder() throws {
        let bytes = (0..<32).map { UInt8($0 * 8 + 1) }
        let id = try #require(SessionID(secretBytes: bytes))
        #expect(id.cookieValue == bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
        #expect(id.secretBytes == bytes)
        #expect(SessionID(secretBytes: Array(bytes.prefix(31))) == nil)
    }

    @Test func anIDIsItsBitsInline() {
        #expect(MemoryLayout<SessionID>.size == 32)
        #expect(SessionID.random() != SessionID.random())
        #expect(SessionID.random().cookieValue.utf8.count == 64)
    }
}
