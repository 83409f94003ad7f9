import Clocks
import LuthierFeatures
import Testing

@testable import LuthierWeb

@Suite("SessionRegistry")
struct SessionRegistryTests {
    @Test("past the cap a new visitor gets 503 with Retry-After; existing sessions keep working")
    func cap() async throws {
        try await TestApp.run(configure: { $0.maxSessions = 2 }) { app in
            let first = try await app.newSession()
            let second = try await app.newSession()

            let third = try await app.get()
            #expect(third.status == 503)
            #expect(third.header("Retry-After") == "60")
            #expect(third.text.contains("try again"))
            #expect(third.headers["Set-Cookie"].isEmpty)

            let thirdPost = try await app.scriptPost(form: "shape=longV", cookie: nil)
            #expect(thirdPost.status == 503)
            #expect(thirdPost.header("Retry-After") == "60")

            let forged = try await app.get(cookie: String(repeating: "b", count: 64))
            #expect(forged.status == 503)

            let browser = try await app.get(headers: [("Accept", "text/html")])
            #expect(browser.status == 503)
            #expect(browser.header("Content-Type") == "text/html; charset=utf-8")
            #expect(browser.text.contains("data-status=\"503\""))

            #expect(app.services.registry.count == 2)
            #expect(try await app.scriptPost(form: "shape=longV", cookie: first).status == 204)
            #expect(try await app.page(cookie: first).checkedValues["shape"] == ["longV"])
            #expect(try await app.page(cookie: second).checkedValues["shape"] == ["casual"])
            let stream = try await app.openEventStream(cookie: second)
            #expect(stream.head.status.code == 200)
            await stream.close()
        }
    }

    @Test("when an idle session is dropped, a waiting visitor gets a place")
    func capFreedByExpiry() async throws {
        try await TestApp.run(configure: {
            $0.maxSessions = 1
            $0.sessionIdleTimeout = .seconds(60)
        }) { app in
            _ = try await app.newSession()
            #expect(try await app.get().status == 503)
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
        let session = try #require(registry.createSession() as Session?)
        #expect(registry.session(forCookie: session.id.rawValue) === session)
        #expect(registry.session(forCookie: nil) == nil)
        #expect(registry.session(forCookie: session.id.rawValue.uppercased()) == nil)
        #expect(registry.session(forCookie: String(session.id.rawValue.dropLast())) == nil)
        #expect(registry.session(forCookie: SessionID.random().rawValue) == nil)
        let other = try #require(registry.createSession() as Session?)
        #expect(other.id != session.id)
        #expect(registry.createSession() == nil)
        #expect(registry.count == 2)
    }

    @Test("session ids are 64 lowercase hex digits and distinct")
    func sessionIDs() {
        var seen: Set<String> = []
        for _ in 0..<1_000 {
            let id = SessionID.random()
            #expect(SessionID(rawValue: id.rawValue) == id)
            #expect(id.rawValue.utf8.count == 64)
            seen.insert(id.rawValue)
        }
        #expect(seen.count == 1_000)
        #expect(SessionID(rawValue: String(repeating: "F", count: 64)) == nil)
        #expect(SessionID(rawValue: String(repeating: "f", count: 64)) != nil)
        #expect(SessionID(rawValue: "") == nil)
    }
}
