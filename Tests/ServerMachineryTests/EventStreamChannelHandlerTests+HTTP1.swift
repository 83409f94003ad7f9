import Foundation
import HTTPTypes
import NIOCore
import NIOEmbedded
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Testing

@testable import ServerMachinery

/// The handover on a connection with NIO's HTTP/1 handlers, as Hummingbird sets them up: once the
/// stream is the handler's, those handlers leave the pipeline, and the events go out framed as
/// the encoder would have framed them.
@Suite("EventStreamChannelHandler on HTTP/1")
struct EventStreamChannelHandlerHTTP1Tests {
    struct Fixture {
        let channel = EmbeddedChannel()
        let router = EventStreamChannelHandlerTests.RouterSide()
        let handler = EventStreamChannelHandler()
        let fragments = FragmentStore(initial: [Fragment(target: "price", html: "one")], epoch: 1)
        let hub = EventStreamHub()

        init() throws {
            let operations = channel.pipeline.syncOperations
            try operations.configureHTTPServerPipeline(withPipeliningAssistance: true, withErrorHandling: false)
            let empty = FileManager.default.temporaryDirectory.appendingPathComponent(
                "luthier-empty-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: empty) }
            let catalog = try StaticAssetCatalog(directory: empty.path)
            // As LayeredHTTP1Channel places them: the static files ahead of the conversion.
            try operations.addHandler(
                StaticAssetChannelHandler(answers: StaticAssetAnswers(catalog: catalog, cacheControl: "")))
            try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try operations.addHandlers([handler, router])
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        }

        /// A request for the stream arrives as bytes (with `pipelined` after it in the same read);
        /// the route hands the stream over and answers.
        func answerTheStream(pipelined: String = "") throws {
            try channel.writeInbound(ByteBuffer(string: "GET /events HTTP/1.1\r\nHost: t\r\n\r\n" + pipelined))
            handler.prepare(
                EventStreamBundle(
                    EventStreamConnection(
                        fragments: fragments, hub: hub, reconnectDelayMilliseconds: 2_000, compressed: false)))
            try channel.writeOutbound(HTTPResponsePart.head(EventStreamChannelHandlerTests.Fixture.streamHead))
            try channel.writeOutbound(HTTPResponsePart.end(nil))
        }

        /// The bytes written to the socket so far.
        func written() throws -> String {
            var text = ""
            while let data = try channel.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let buffer) = data else { continue }
                text += String(buffer: buffer)
            }
            return text
        }

        func has<Handler: ChannelHandler>(_ type: Handler.Type) -> Bool {
            (try? channel.pipeline.syncOperations.context(handlerType: type)) != nil
        }
    }

    /// The chunks of a chunked body (RFC 9112 §7.1), and whether its last chunk came; records an
    /// issue for bytes that are not chunks.
    static func chunks(_ body: Substring) -> (chunks: [String], ended: Bool) {
        var rest = body
        var chunks: [String] = []
        while let lineEnd = rest.range(of: "\r\n") {
            guard let size = Int(rest[..<lineEnd.lowerBound], radix: 16) else {
                Issue.record("not a chunk size: \(rest.prefix(20))")
                return (chunks, false)
            }
            let data = rest[lineEnd.upperBound...].utf8.prefix(size)
            let after = rest[lineEnd.upperBound...].utf8.dropFirst(size)
            guard data.count == size, after.starts(with: "\r\n".utf8) else {
                Issue.record("a chunk of \(size) bytes is cut short")
                return (chunks, false)
            }
            if size == 0 { return (chunks, after.count == 2) }
            chunks.append(String(decoding: data, as: UTF8.self))
            rest = Substring(after.dropFirst(2))
        }
        #expect(rest.isEmpty, "left over: \(rest)")
        return (chunks, false)
    }

    @Test("the HTTP/1 handlers leave once the stream is taken over, and each event goes out as one chunk")
    func handlersLeaveAndEventsAreChunks() throws {
        let fixture = try Fixture()
        #expect(fixture.has(HTTPResponseEncoder.self) && fixture.has(ByteToMessageHandler<HTTPRequestDecoder>.self))
        try fixture.answerTheStream()
        let opening = try fixture.written()
        #expect(opening.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(opening.lowercased().contains("transfer-encoding: chunked\r\n"))
        #expect(opening.lowercased().contains("connection: close\r\n"))
        let head = try #require(opening.range(of: "\r\n\r\n"))
        let first = Self.chunks(opening[head.upperBound...])
        #expect(first.chunks.first == "retry: 2000\n\n")
        #expect(first.chunks.contains { $0.contains("event: patch") && $0.contains("one") })
        #expect(!first.ended)
        #expect(!fixture.has(StaticAssetChannelHandler.self))
        #expect(fixture.has(EventStreamWire.self))
        // The decoder leaves on the loop's next turn, and the rest after it.
        fixture.channel.embeddedEventLoop.run()
        #expect(!fixture.has(HTTPResponseEncoder.self))
        #expect(!fixture.has(ByteToMessageHandler<HTTPRequestDecoder>.self))
        #expect(!fixture.has(HTTPServerPipelineHandler.self))
        #expect(!fixture.has(HTTP1ToHTTPServerCodec.self))

        fixture.fragments.publish([Fragment(target: "price", html: "two")])
        fixture.channel.embeddedEventLoop.run()
        let change = Self.chunks(Substring(try fixture.written()))
        #expect(change.chunks.count == 1)
        #expect(change.chunks.first?.contains("two") == true)
    }

    @Test("what the client sends after the stream is dropped, and the quiesce ends the body with its last chunk")
    func laterBytesAndTheEnd() throws {
        let fixture = try Fixture()
        try fixture.answerTheStream()
        _ = try fixture.written()
        let reads = fixture.router.reads.count
        try fixture.channel.writeInbound(ByteBuffer(string: "GET / HTTP/1.1\r\nHost: t\r\n\r\nnot even HTTP"))
        #expect(fixture.router.reads.count == reads)
        #expect(fixture.channel.isActive)

        fixture.channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        fixture.channel.embeddedEventLoop.run()
        let ending = Self.chunks(Substring(try fixture.written()))
        #expect(ending.chunks == [ServerSentEvent.stopping(retryMilliseconds: 2_000)])
        #expect(ending.ended)
        #expect(!fixture.channel.isActive)
        #expect(fixture.fragments.subscriberCount == 0)
    }

    @Test(
        "requests sent in the same read as the stream's, held back by the pipelining handler, are dropped when it leaves"
    )
    func pipelinedRequestsAreDropped() throws {
        let fixture = try Fixture()
        try fixture.answerTheStream(
            pipelined: "GET /styles.css HTTP/1.1\r\nHost: t\r\n\r\nPOST /build HTTP/1.1\r\nHost: t\r\n"
                + "Content-Length: 5\r\n\r\ncolor")
        let reads = fixture.router.reads.count
        fixture.channel.embeddedEventLoop.run()
        #expect(!fixture.has(HTTPServerPipelineHandler.self) && !fixture.has(HTTP1ToHTTPServerCodec.self))
        #expect(fixture.router.reads.count == reads)
        let text = try fixture.written()
        #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "one answer only: \(text)")
        fixture.fragments.publish([Fragment(target: "price", html: "two")])
        fixture.channel.embeddedEventLoop.run()
        #expect(Self.chunks(Substring(try fixture.written())).chunks.first?.contains("two") == true)
    }
}
