import NIOCore
import NIOHTTP1
import NIOPosix
import Testing

@testable import LuthierWeb

/// The caps on event streams and connections, over real sockets.
@Suite("Connection and stream limits over HTTP")
struct ConnectionLimitsTests {
    @Test("a session's streams past its cap, and any stream past the server's, get 503 with Retry-After")
    func streamCaps() async throws {
        try await TestApp.run(configure: {
            $0.maxEventStreamsPerSession = 2
            $0.maxEventStreams = 3
        }) { app in
            let cookie = try await app.newSession()
            let first = try await app.openEventStream(cookie: cookie)
            let second = try await app.openEventStream(cookie: cookie)
            #expect(first.head.status == .ok && second.head.status == .ok)
            #expect(await eventually { app.liveSession(cookie)?.openStreamCount == 2 })
            let third = try await app.get("/events", cookie: cookie)
            #expect(third.status == 503)
            #expect(third.header("retry-after") == "30")
            #expect(third.text.contains("live pages"))

            // Another session may still open one, up to the server's cap of three.
            let other = try await app.newSession()
            let otherStream = try await app.openEventStream(cookie: other)
            #expect(otherStream.head.status == .ok)
            #expect(await eventually { app.services.hub.openStreams == 3 })
            let kiosk = try await app.get("/kiosk/events")
            #expect(kiosk.status == 503)
            #expect(kiosk.header("retry-after") == "10")

            // A closed stream frees its place.
            await first.connection.close()
            #expect(await eventually { app.services.hub.openStreams == 2 })
            let again = try await app.openEventStream(cookie: cookie)
            #expect(again.head.status == .ok)
            for stream in [second, otherStream, again] { await stream.connection.close() }
        }
    }

    @Test("past the connection cap a new connection is answered 503 with Retry-After; a closed one frees a place")
    func connectionCap() async throws {
        try await TestApp.run(configure: { $0.maxConnections = 1 }) { app in
            // An idle connection holds the only place.
            let holder = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: app.port).get()
            #expect(await eventually { app.services.connections.current == 1 })
            let refused = try await app.get("/healthz")
            #expect(refused.status == 503)
            #expect(refused.header("retry-after") != nil)
            try await holder.close()
            #expect(await eventually { app.services.connections.current == 0 })
            let served = try await app.get("/healthz")
            #expect(served.status == 200)
        }
    }
}
