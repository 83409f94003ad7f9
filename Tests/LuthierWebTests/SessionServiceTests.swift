import ServerMachinery
import TestSupport
import Testing

@testable import LuthierWeb

/// The idle sweep and the heartbeat, on the test clock.
@Suite("SessionService")
struct SessionServiceTests {
    @Test("a session unused for the idle timeout is dropped; with nothing stored, its next act starts afresh")
    func idleExpiry() async throws {
        try await TestApp.run(configure: { $0.sessionIdleTimeout = .seconds(60) }) { app in
            let cookie = try await app.newSession()
            #expect(app.services.registry.count == 1)
            // At most one sweep interval (a quarter of the timeout) after the timeout.
            try await app.advance(by: .seconds(75))
            #expect(app.services.registry.count == 0)

            // The id is this server's own: the page keeps it and makes no session.
            let response = try await app.get(cookie: cookie)
            #expect(response.status == 200)
            #expect(response.headers["Set-Cookie"].isEmpty)
            #expect(app.services.registry.count == 0)
            // Its next act makes a fresh session under it (nothing of the old one was stored).
            #expect(try await app.scriptPost(form: "shape=chunky", cookie: cookie).status == 204)
            #expect(app.services.registry.count == 1)
            #expect(try await app.page(cookie: cookie).checkedValues["shape"] == ["chunky"])
        }
    }

    @Test("a session is never dropped before it has been idle for the whole timeout")
    func notBeforeTimeout() async throws {
        try await TestApp.run(configure: { $0.sessionIdleTimeout = .seconds(60) }) { app in
            let cookie = try await app.newSession()
            try await app.advance(by: .seconds(14))
            // Last use at t = 14 s, just before a sweep.
            #expect(try await app.get(cookie: cookie).headers["Set-Cookie"].isEmpty)
            try await app.advance(by: .seconds(46))
            // t = 60 s: idle for 46 s only, less than the 60 s timeout.
            #expect(app.services.registry.count == 1, "dropped after 46 s idle with a 60 s timeout")
            try await app.advance(by: .seconds(29))
            // t = 89 s: idle for 75 s, past the timeout plus one sweep interval.
            #expect(app.services.registry.count == 0)
        }
    }

    @Test("requests keep a session alive")
    func activityKeepsAlive() async throws {
        try await TestApp.run(configure: { $0.sessionIdleTimeout = .seconds(60) }) { app in
            let cookie = try await app.newSession()
            for _ in 0..<6 {
                try await app.advance(by: .seconds(30))
                #expect(try await app.scriptPost(form: "shape=chunky", cookie: cookie).headers["Set-Cookie"].isEmpty)
            }
            #expect(app.services.registry.count == 1)
        }
    }

    @Test("a session with an open event stream is not dropped, however quiet")
    func openStreamKeepsAlive() async throws {
        try await TestApp.run(configure: { $0.sessionIdleTimeout = .seconds(60) }) { app in
            let cookie = try await app.newSession()
            let stream = try await app.openEventStream(cookie: cookie)
            #expect(try await stream.nextEvent().retry != nil)
            _ = try await stream.nextPatch()
            try await app.advance(by: .seconds(180))
            #expect(app.services.registry.count == 1)
            #expect(try await app.get(cookie: cookie).headers["Set-Cookie"].isEmpty)

            await stream.close()
            #expect(await app.streams { $0.open == 0 })
            try await app.advance(by: .seconds(75))
            #expect(app.services.registry.count == 0)
        }
    }

    @Test("a dropped session's output driver and streams are released")
    func droppedSessionReleased() async throws {
        try await TestApp.run(configure: { $0.sessionIdleTimeout = .seconds(60) }) { app in
            let cookie = try await app.newSession()
            let session = try #require(app.liveSession(cookie))
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            #expect(await within { _ = await session.build.untilOutputSubscribers { $0 == 1 } })
            try await app.advance(by: .seconds(75))
            #expect(app.services.registry.count == 0)
            #expect(await within { _ = await session.build.untilOutputSubscribers { $0 == 0 } })
            #expect(session.fragments.addWaker(StreamWaker(AsyncStream<Void>.makeStream().continuation)) == nil)
        }
    }
}
