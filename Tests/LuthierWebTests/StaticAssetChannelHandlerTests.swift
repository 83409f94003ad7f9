import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOPosix
import ServerMachinery
import Synchronization
import TestSupport
import Testing

@testable import LuthierWeb

/// The handler that answers static files before the router, over real sockets (the middleware
/// suite's `.live` runs cover the answers themselves: negotiation, ETags, 304, 406, HEAD).
@Suite("StaticAssetChannelHandler")
struct StaticAssetChannelHandlerTests {
    /// Collects every byte a connection receives until the server closes it.
    final class Collector: ChannelInboundHandler, Sendable {
        typealias InboundIn = ByteBuffer
        let received: EventLoopPromise<String>
        private let bytes = Mutex<[UInt8]>([])

        init(_ received: EventLoopPromise<String>) { self.received = received }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            bytes.withLock { $0 += Array(buffer.readableBytesView) }
        }

        func channelInactive(context: ChannelHandlerContext) {
            received.succeed(String(decoding: bytes.withLock { $0 }, as: UTF8.self))
        }
    }

    /// Sends `raw` in one write and returns everything the server sent until it closed.
    static func exchange(port: Int, _ raw: String) async throws -> String {
        let group = MultiThreadedEventLoopGroup.singleton
        let received = group.any().makePromise(of: String.self)
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(received))
                }
            }
            .connect(host: "127.0.0.1", port: port).get()
        try await channel.writeAndFlush(ByteBuffer(string: raw))
        let timeout = channel.eventLoop.scheduleTask(in: .seconds(10)) { channel.close(promise: nil) }
        defer { timeout.cancel() }
        return try await received.futureResult.get()
    }

    @Test("pipelined requests are answered in order when a router request comes first")
    func pipelinedInOrder() async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(.live) { client in
                let port = try #require(client.port)
                let text = try await Self.exchange(
                    port: port,
                    "GET /events HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "GET /tiny.txt HTTP/1.1\r\nHost: t\r\n\r\n"
                        + "GET /tiny.txt?v=2 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                let events = try #require(text.range(of: "event: tick"))
                let tiny = try #require(text.range(of: StaticAssetFixture.tinyText))
                #expect(events.lowerBound < tiny.lowerBound)
                #expect(text.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
                #expect(text.components(separatedBy: StaticAssetFixture.tinyText).count == 3)
            }
        }
    }

    @Test("a static answer carries the security headers, and `Connection: close` closes after it")
    func headersAndClose() async throws {
        try await TestApp.run { app in
            let text = try await Self.exchange(
                port: app.port, "GET /styles.css HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
            let head = text.components(separatedBy: "\r\n\r\n").first?.lowercased() ?? ""
            #expect(head.hasPrefix("http/1.1 200 ok"))
            #expect(head.contains("content-security-policy: default-src 'self'"))
            #expect(head.contains("x-content-type-options: nosniff"))
            #expect(head.contains("referrer-policy: same-origin"))
            #expect(head.contains("x-frame-options: deny"))
            #expect(head.contains("connection: close"))
            #expect(head.contains("etag: "))
        }
    }

    @Test("anything that is not a catalog file goes on to the router")
    func othersReachTheRouter() async throws {
        try await TestApp.run { app in
            let missing = try await app.get("/no-such-file.css")
            #expect(missing.status == 404)
            let post = try await app.request(.POST, "/styles.css")
            #expect(post.status != 200)
            let health = try await app.get("/healthz")
            #expect(health.status == 200)
            #expect(health.text == "ok\n")
            #expect(health.header("set-cookie") == nil)
            let page = try await app.get("/")
            #expect(page.status == 200)
            #expect(page.text.contains(#"<img class="guitar-artwork" src="/guitars/"#))
        }
    }

    @Test("an HTTP/1.0 request without keep-alive is told `Connection: close` and closed after its file")
    func http10Closes() async throws {
        try await TestApp.run { app in
            let text = try await Self.exchange(port: app.port, "GET /styles.css HTTP/1.0\r\nHost: t\r\n\r\n")
            let head = text.components(separatedBy: "\r\n\r\n").first?.lowercased() ?? ""
            #expect(head.hasPrefix("http/1.1 200 ok"))
            #expect(head.contains("connection: close"))
        }
    }

    @Test("a conditional request takes the long way here too (304), and a whole address is the router's")
    func conditionalAndAbsoluteTargets() async throws {
        try await TestApp.run { app in
            let first = try await app.get("/styles.css")
            let etag = try #require(first.header("etag"))
            let text = try await Self.exchange(
                port: app.port,
                "GET /styles.css HTTP/1.1\r\nHost: t\r\nIf-None-Match: \(etag)\r\nConnection: close\r\n\r\n")
            #expect(text.lowercased().hasPrefix("http/1.1 304 not modified"))
            #expect(text.lowercased().contains("x-content-type-options: nosniff"))
            let absolute = try await Self.exchange(
                port: app.port,
                "GET http://localhost/styles.css HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
            // Answered all the same, by the router's middleware (the conversion makes it a path).
            #expect(absolute.lowercased().hasPrefix("http/1.1 200 ok"))
            #expect(absolute.lowercased().contains("etag: \(etag.lowercased())"))
        }
    }

    @Test("a connection that fetches only files is guarded like any other: timed for its next head after each answer")
    func filesOnlyConnectionsAreGuarded() throws {
        let catalog = try StaticAssetCatalog(directory: TestApp.repositoryRoot.appendingPathComponent("Public").path)
        let counter = ConnectionCounter(limit: 10)
        let limits = ConnectionGuard.Limits(headerTimeout: .seconds(10), bodyTimeout: .seconds(5))
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([
            ConnectionGuard(limits: limits, counter: counter),
            StaticAssetChannelHandler(answers: StaticAssetAnswers(catalog: catalog, cacheControl: "")),
        ])
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        #expect(counter.current == 1)
        for _ in 0..<3 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(9))
            try channel.writeInbound(
                HTTPServerRequestPart.head(
                    HTTPRequestHead(
                        version: .http1_1, method: .GET, uri: "/styles.css", headers: ["Host": "shop.example"])))
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
            // Answered here, never passed on.
            #expect(try channel.readInbound(as: HTTPServerRequestPart.self) == nil)
            guard case .head(let head) = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
                Issue.record("no answer")
                return
            }
            #expect(head.status == .ok)
            while try channel.readOutbound(as: HTTPServerResponsePart.self) != nil {}
            #expect(channel.isActive)
        }
        // The head time-out starts again at each answer, and runs out without a next request.
        channel.embeddedEventLoop.advanceTime(by: .seconds(10))
        #expect(!channel.isActive)
        #expect(counter.current == 0)
    }
}
