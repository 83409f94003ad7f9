import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import ServerMachinery

/// The guard on an embedded channel, on the embedded event loop's virtual clock.
@Suite("ConnectionGuard")
struct ConnectionGuardTests {
    static let limits = ConnectionGuard.Limits(
        headerTimeout: .seconds(10), bodyTimeout: .seconds(5), stalledWriteTimeout: .seconds(30), retryAfterSeconds: 7)

    static func channel(counter: ConnectionCounter = ConnectionCounter(limit: 100)) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, counter: counter))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static let head = HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/"))

    /// The head and body the guard wrote on `channel` itself, if it wrote both.
    static func answer(on channel: EmbeddedChannel) throws -> (HTTPResponseHead, String)? {
        guard case .head(let head) = try channel.readOutbound(as: HTTPServerResponsePart.self),
            case .body(.byteBuffer(let body)) = try channel.readOutbound(as: HTTPServerResponsePart.self)
        else { return nil }
        return (head, String(buffer: body))
    }

    @Test("a client that never completes a request's head is cut off at the head time-out")
    func headTimeout() throws {
        let channel = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("a body that does not end within the body time-out of its head is cut off")
    func bodyTimeout() throws {
        let channel = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try channel.writeInbound(Self.head)
        // The head came in time; now the body has 5 s, however slowly its bytes trickle in.
        for _ in 0..<4 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "x")))
        }
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("a request being answered is not timed (an event stream lasts), and the next head is, after the answer")
    func answeredRequestsAreNotTimed() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(3_600))
        #expect(channel.isActive)
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
    }

    @Test("a reader that takes nothing while data waits is disconnected after the stall time-out, not before")
    func stalledReader() throws {
        let counter = ConnectionCounter(limit: 10)
        let channel = try Self.channel(counter: counter)
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        // It reads again in time: the clock starts over on the next stall.
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(20))
        #expect(channel.isActive)
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        channel.embeddedEventLoop.advanceTime(by: .seconds(29))
        #expect(channel.isActive)
        #expect(counter.cutOff == 0)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive)
        #expect(counter.cutOff == 1)
    }

    @Test("past the connection limit a connection is answered 503 with Retry-After and closed; closing frees a place")
    func connectionLimit() throws {
        let counter = ConnectionCounter(limit: 2)
        let first = try Self.channel(counter: counter)
        let second = try Self.channel(counter: counter)
        let third = try Self.channel(counter: counter)
        #expect(counter.current == 3)
        try third.writeInbound(Self.head)
        #expect(try third.readInbound(as: HTTPServerRequestPart.self) == nil)
        let (response, body) = try #require(try Self.answer(on: third))
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers["Retry-After"] == ["7"])
        #expect(response.headers["Connection"] == ["close"])
        #expect(body.contains("busy"))
        #expect(!third.isActive)
        #expect(counter.current == 2)
        #expect(counter.refused == 1)

        // The admitted ones are served (their requests go on).
        try first.writeInbound(Self.head)
        #expect(try first.readInbound(as: HTTPServerRequestPart.self) != nil)
        _ = try second.finish()
        #expect(counter.current == 1)
        let fourth = try Self.channel(counter: counter)
        try fourth.writeInbound(Self.head)
        #expect(try fourth.readInbound(as: HTTPServerRequestPart.self) != nil)
    }

    @Test("a connection past the cap that sends nothing holds its descriptor only for the short refusal time-out")
    func anIdleRefusedConnectionIsClosedSoon() throws {
        let counter = ConnectionCounter(limit: 1)
        let admitted = try Self.channel(counter: counter)
        let refused = try Self.channel(counter: counter)
        refused.embeddedEventLoop.advanceTime(by: Self.limits.refusedHeadTimeout - .milliseconds(1))
        #expect(refused.isActive)
        refused.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!refused.isActive)
        #expect(counter.current == 1)
        // The admitted one keeps the whole head time-out.
        admitted.embeddedEventLoop.advanceTime(by: .seconds(9))
        #expect(admitted.isActive)
    }
}
