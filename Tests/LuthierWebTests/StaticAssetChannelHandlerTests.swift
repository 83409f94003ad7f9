import Hummingbird
import HummingbirdTesting
import NIOCore
import NIOPosix
import Synchronization
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
            #expect(page.text.contains("<svg"))
        }
    }
}
