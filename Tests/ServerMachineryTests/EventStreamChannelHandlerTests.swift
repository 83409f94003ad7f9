import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Synchronization
import TestSupport
import Testing

@testable import ServerMachinery

/// The handover of a stream from the router to the connection's handler, on an `EmbeddedChannel`:
/// what goes out, what Hummingbird's side is told, and which closes are its and which are real.
/// (Every stream test over HTTP runs through the same handler in the real server.)
@Suite("EventStreamChannelHandler")
struct EventStreamChannelHandlerTests {
    /// Stands for Hummingbird's side of the pipeline: records the errors that reach it.
    final class RouterSide: ChannelInboundHandler {
        typealias InboundIn = HTTPRequestPart
        var errors: [any Error] = []
        var reads: [HTTPRequestPart] = []

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            reads.append(unwrapInboundIn(data))
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            errors.append(error)
        }
    }

    final class Calls: Sendable {
        private let counts = Mutex<(opened: Int, closed: Int, unused: Int)>((0, 0, 0))
        var now: [Int] { counts.withLock { [$0.opened, $0.closed, $0.unused] } }
        func opened() { counts.withLock { $0.opened += 1 } }
        func closed() { counts.withLock { $0.closed += 1 } }
        func unused() { counts.withLock { $0.unused += 1 } }
    }

    struct Fixture {
        let channel = EmbeddedChannel()
        let router = RouterSide()
        let handler = EventStreamChannelHandler()
        let fragments = FragmentStore(initial: [Fragment(target: "price", html: "one")], epoch: 1)
        let log = LogCapture()
        let hub: EventStreamHub
        /// How often the connection was opened, closed and left unused.
        let calls = Calls()

        init() throws {
            hub = EventStreamHub(logger: log.logger())
            try channel.pipeline.syncOperations.addHandlers([handler, router])
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        func connection(compressed: Bool = false) -> EventStreamConnection {
            let calls = calls
            return EventStreamConnection(
                fragments: fragments, hub: hub, reconnectDelayMilliseconds: 2_000, compressed: compressed,
                opened: calls.opened, closed: calls.closed, unused: calls.unused)
        }

        /// What the route and Hummingbird's writer do: hand the stream over, then write the answer.
        func answer(
            with connection: EventStreamConnection, head: HTTPResponse = Fixture.streamHead,
            request: HTTPRequest = HTTPRequest(method: .get, scheme: nil, authority: "t", path: "/events")
        ) throws {
            try channel.writeInbound(HTTPRequestPart.head(request))
            try channel.writeInbound(HTTPRequestPart.end(nil))
            handler.prepare(EventStreamBundle(connection))
            try channel.writeOutbound(HTTPResponsePart.head(head))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }

        static let streamHead = HTTPResponse(
            status: .ok, headerFields: [.contentType: "text/event-stream; charset=utf-8", .contentLength: "0"])

        /// Every part written to the socket side so far.
        func written() throws -> [HTTPResponsePart] {
            var parts: [HTTPResponsePart] = []
            while let part = try channel.readOutbound(as: HTTPResponsePart.self) { parts.append(part) }
            return parts
        }

        /// The bodies of `parts`, as text.
        static func text(_ parts: [HTTPResponsePart]) -> String {
            parts.reduce(into: "") { text, part in
                if case .body(let buffer) = part { text += String(buffer: buffer) }
            }
        }
    }

    @Test(
        "the router's head goes out unsized and closing, its end is held back, the opening follows, and the router's side is ended"
    )
    func handover() throws {
        let fixture = try Fixture()
        try fixture.answer(with: fixture.connection())
        let parts = try fixture.written()
        guard case .head(let head) = parts.first else {
            Issue.record("no head: \(parts)")
            return
        }
        #expect(head.headerFields[.contentLength] == nil)
        #expect(head.headerFields[.connection] == "close")
        let text = Fixture.text(parts)
        #expect(text.hasPrefix("retry: 2000\n\n"))
        #expect(text.contains("event: patch") && text.contains("one"))
        #expect(!parts.contains { if case .end = $0 { true } else { false } })
        #expect(fixture.router.errors.count == 1)
        #expect(fixture.router.errors.first is EventStreamChannelHandler.HandedOver)
        #expect(fixture.fragments.subscriberCount == 1)
        #expect(fixture.hub.openStreams == 1)
    }

    @Test("changes made before the stream catches up go as one patch at the newest; nothing more after")
    func conflatedChanges() throws {
        let fixture = try Fixture()
        try fixture.answer(with: fixture.connection())
        _ = try fixture.written()
        for price in ["two", "three", "four"] { fixture.fragments.publish([Fragment(target: "price", html: price)]) }
        fixture.channel.embeddedEventLoop.run()
        let text = Fixture.text(try fixture.written())
        #expect(text.components(separatedBy: "event: patch").count == 2, "\(text)")
        #expect(text.contains("four") && !text.contains("two") && !text.contains("three"))
        fixture.channel.embeddedEventLoop.run()
        #expect(try fixture.written().isEmpty)
    }

    @Test("the router's half-close and its one close are answered without closing; the next close is real")
    func closesOfTheRouterSide() throws {
        let fixture = try Fixture()
        try fixture.answer(with: fixture.connection())
        _ = try fixture.written()
        let halfClosed = fixture.channel.eventLoop.makePromise(of: Void.self)
        fixture.channel.close(mode: .output, promise: halfClosed)
        let routerClosed = fixture.channel.eventLoop.makePromise(of: Void.self)
        fixture.channel.close(mode: .all, promise: routerClosed)
        try halfClosed.futureResult.wait()
        try routerClosed.futureResult.wait()
        #expect(fixture.channel.isActive)
        fixture.fragments.publish([Fragment(target: "price", html: "two")])
        fixture.channel.embeddedEventLoop.run()
        #expect(Fixture.text(try fixture.written()).contains("two"))

        _ = try? fixture.channel.finish()
        #expect(!fixture.channel.isActive)
        #expect(fixture.fragments.subscriberCount == 0)
        #expect(fixture.hub.openStreams == 0)
        #expect(fixture.calls.now == [1, 1, 0])
    }

    @Test(
        "a request that asked to close the connection: the router's side closes nothing more, so no close is swallowed")
    func closingRequest() throws {
        let fixture = try Fixture()
        var request = HTTPRequest(method: .get, scheme: nil, authority: "t", path: "/events")
        request.headerFields[.connection] = "close"
        try fixture.answer(with: fixture.connection(), request: request)
        _ = try fixture.written()
        fixture.channel.close(mode: .all, promise: nil)
        fixture.channel.embeddedEventLoop.run()
        #expect(!fixture.channel.isActive)
        #expect(fixture.hub.openStreams == 0)
    }

    @Test("the server's quiesce ends the stream with a reconnect hint and the end, then closes")
    func quiesce() throws {
        let fixture = try Fixture()
        try fixture.answer(with: fixture.connection())
        _ = try fixture.written()
        fixture.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        fixture.channel.embeddedEventLoop.run()
        let parts = try fixture.written()
        #expect(Fixture.text(parts).contains(ServerSentEvent.stopping(retryMilliseconds: 2_000)))
        guard case .end = parts.last else {
            Issue.record("no end: \(parts)")
            return
        }
        #expect(!fixture.channel.isActive)
        #expect(fixture.fragments.subscriberCount == 0)
    }

    @Test("a client that closes its side frees the stream at once")
    func clientClosesItsSide() throws {
        let fixture = try Fixture()
        try fixture.answer(with: fixture.connection())
        _ = try fixture.written()
        fixture.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        fixture.channel.embeddedEventLoop.run()
        #expect(fixture.fragments.subscriberCount == 0)
        #expect(!fixture.channel.isActive)
        #expect(fixture.hub.openStreams == 0)
    }

    @Test("the store's end ends the stream, with a gzip trailer when compressed")
    func storeFinishes() throws {
        let fixture = try Fixture()
        try fixture.answer(with: fixture.connection(compressed: true))
        _ = try fixture.written()
        fixture.fragments.finish()
        fixture.channel.embeddedEventLoop.run()
        let parts = try fixture.written()
        let trailer = GzipBody.closing(crc: 0, length: 0).readableBytes
        guard parts.count >= 2, case .body(let last) = parts[parts.count - 2], case .end = parts.last else {
            Issue.record("no trailer and end: \(parts)")
            return
        }
        #expect(last.readableBytes == trailer)
        #expect(!fixture.channel.isActive)
    }

    @Test("requests sent after a stream reach nothing, and the router's late writes fail")
    func afterTheHandover() throws {
        let fixture = try Fixture()
        try fixture.answer(with: fixture.connection())
        _ = try fixture.written()
        let readsBefore = fixture.router.reads.count
        try fixture.channel.writeInbound(
            HTTPRequestPart.head(HTTPRequest(method: .get, scheme: nil, authority: "t", path: "/")))
        #expect(fixture.router.reads.count == readsBefore)
        let late = fixture.channel.eventLoop.makePromise(of: Void.self)
        fixture.channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .ok)), promise: late)
        #expect(throws: ChannelError.self) { try late.futureResult.wait() }
        #expect(try fixture.written().isEmpty)
    }

    @Test("an answer that is not the stream's (an error replaced it) passes as it is, and nothing is taken over")
    func notTheStreamsAnswer() throws {
        let fixture = try Fixture()
        try fixture.answer(
            with: fixture.connection(),
            head: HTTPResponse(status: .serviceUnavailable, headerFields: [.contentLength: "0"]))
        let parts = try fixture.written()
        #expect(parts.count == 2)
        guard case .head(let head) = parts.first, case .end = parts.last else {
            Issue.record("not passed: \(parts)")
            return
        }
        #expect(head.headerFields[.contentLength] == "0")
        #expect(fixture.router.errors.isEmpty)
        #expect(fixture.fragments.subscriberCount == 0)
        #expect(fixture.calls.now == [0, 0, 1])
    }

    @Test(
        "a store that has already finished: the empty answer goes out as it is, and the connection stays the router's")
    func finishedStore() throws {
        let fixture = try Fixture()
        fixture.fragments.finish()
        try fixture.answer(with: fixture.connection())
        let parts = try fixture.written()
        guard case .end = parts.last else {
            Issue.record("no end: \(parts)")
            return
        }
        #expect(fixture.router.errors.isEmpty)
        #expect(fixture.channel.isActive)
        #expect(fixture.calls.now == [0, 0, 1])
    }

    @Test("a stream's opening and its end are logged with its number and the reason it ended")
    func openingAndEndAreLogged() throws {
        let endings: [(String, (Fixture) -> Void)] = [
            ("the client closed it", { $0.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed) }),
            (
                "the server is stopping",
                { $0.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent()) }
            ),
            ("its session or store ended", { $0.fragments.finish() }),
            ("its connection closed", { $0.channel.pipeline.fireChannelInactive() }),
        ]
        for (reason, ending) in endings {
            let fixture = try Fixture()
            try fixture.answer(with: fixture.connection())
            #expect(fixture.log.all == ["info Event stream opened kind=shop open=1 stream=0"], "\(reason)")
            ending(fixture)
            fixture.channel.embeddedEventLoop.run()
            #expect(fixture.log.all.dropFirst() == ["info Event stream ended: \(reason) stream=0"], "\(reason)")
        }
    }
}
