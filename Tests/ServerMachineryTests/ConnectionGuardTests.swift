import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import ServerMachinery

/// The guard on an embedded channel, on the embedded event loop's virtual clock.
@Suite("ConnectionGuard")
struct ConnectionGuardTests {
    static let limits = ConnectionGuard.Limits(
        headerTimeout: .seconds(10), bodyTimeout: .seconds(5), stalledWriteTimeout: .seconds(30), retryAfterSeconds: 7,
        maxBodyBytes: 100)

    static func channel(counter: ConnectionCounter = ConnectionCounter(limit: 100)) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(ConnectionGuard(limits: limits, counter: counter))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static let head = HTTPServerRequestPart.head(
        HTTPRequestHead(version: .http1_1, method: .GET, uri: "/", headers: ["Host": "shop.example"]))

    /// A post's head with `headers` (its `Content-Length`, or `Transfer-Encoding: chunked`).
    static func post(_ headers: HTTPHeaders) -> HTTPServerRequestPart {
        var all: HTTPHeaders = ["Host": "shop.example"]
        all.add(contentsOf: headers)
        return .head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/build", headers: all))
    }

    static func body(_ count: Int) -> HTTPServerRequestPart {
        .body(ByteBuffer(repeating: UInt8(ascii: "x"), count: count))
    }

    /// The parts the guard passed on to the handlers after it.
    static func passedOn(_ channel: EmbeddedChannel) throws -> [HTTPServerRequestPart] {
        var parts: [HTTPServerRequestPart] = []
        while let part = try channel.readInbound(as: HTTPServerRequestPart.self) { parts.append(part) }
        return parts
    }

    static func answerEnds(_ channel: EmbeddedChannel) throws {
        try channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
    }

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

    @Test("a body that does not end within the body time-out of its head is answered 408 with a sentence and cut off")
    func bodyTimeout() throws {
        let channel = try Self.channel()
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try channel.writeInbound(Self.post(["Content-Length": "10"]))
        // The head came in time; now the body has 5 s, however slowly its bytes trickle in.
        for _ in 0..<4 {
            channel.embeddedEventLoop.advanceTime(by: .seconds(1))
            try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "x")))
        }
        #expect(channel.isActive)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        let (head, text) = try #require(try Self.answer(on: channel))
        #expect(head.status == .requestTimeout)
        #expect(head.headers["Connection"] == ["close"])
        #expect(head.headers["X-Content-Type-Options"] == ["nosniff"])
        #expect(text == "The request's body did not arrive within 5 s of its head; send it whole, at once.\n")
        #expect(!channel.isActive)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == .end(nil))
        // What the application answers later, its body read cut off, is not written after it.
        #expect(try Self.passedOn(channel).count == 5)
        _ = try? channel.writeOutbound(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok)))
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    @Test("a head that expects 100 Continue is told to go on at once; one refused on its head gets its refusal instead")
    func expectContinue() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.post(["Content-Length": "10", "Expect": "100-continue"]))
        guard case .head(let interim) = try channel.readOutbound(as: HTTPServerResponsePart.self) else {
            Issue.record("no 100 Continue")
            return
        }
        #expect(interim.status == .continue)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        #expect(try Self.passedOn(channel).count == 1)
        // Expect compares case-insensitively; an HTTP/1.0 client is never told (it cannot wait for it).
        let old = try Self.channel()
        try old.writeInbound(
            HTTPServerRequestPart.head(
                HTTPRequestHead(
                    version: .http1_0, method: .POST, uri: "/build",
                    headers: ["Host": "shop.example", "Content-Length": "10", "Expect": "100-Continue"])))
        #expect(try old.readOutbound(as: HTTPServerResponsePart.self) == nil)
    }

    @Test("a request the parser cannot read is answered 400 with a sentence and the security headers, then closed")
    func unreadableRequest() throws {
        let cases: [(HTTPParserError, String)] = [
            (.headerOverflow, "The request's head is larger than this server reads"),
            (.invalidMethod, "method"),
            (.unexpectedContentLength, "Content-Length or Transfer-Encoding: chunked, not both"),
            (.invalidVersion, "HTTP/1.1"),
        ]
        for (error, saying) in cases {
            let channel = try Self.channel()
            channel.pipeline.fireErrorCaught(error)
            let (head, text) = try #require(try Self.answer(on: channel))
            #expect(head.status == .badRequest)
            #expect(head.headers["X-Content-Type-Options"] == ["nosniff"])
            #expect(text.contains(saying), "\(error): \(text)")
            #expect(!channel.isActive)
        }
        // Behind a request being answered, it is answered after that answer, in order.
        let pipelined = try Self.channel()
        try pipelined.writeInbound(Self.head)
        try pipelined.writeInbound(HTTPServerRequestPart.end(nil))
        pipelined.pipeline.fireErrorCaught(HTTPParserError.invalidMethod)
        #expect(try pipelined.readOutbound(as: HTTPServerResponsePart.self) == nil)
        try Self.answerEnds(pipelined)
        _ = try pipelined.readOutbound(as: HTTPServerResponsePart.self)
        _ = try pipelined.readOutbound(as: HTTPServerResponsePart.self)
        #expect(try Self.answer(on: pipelined)?.0.status == .badRequest)
        #expect(!pipelined.isActive)
        // In a request's body, passed on already, the error is the application's to answer.
        let channel = try Self.channel()
        try channel.writeInbound(Self.post(["Transfer-Encoding": "chunked"]))
        channel.pipeline.fireErrorCaught(HTTPParserError.invalidChunkSize)
        #expect(throws: HTTPParserError.self) { try channel.throwIfErrorCaught() }
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
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
        // Closed once the request's end has come: closing with its body unread would reset it.
        #expect(third.isActive)
        try third.writeInbound(HTTPServerRequestPart.end(nil))
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

    @Test(
        "a request that announces a body past the cap is answered 413 at once; its body is read and dropped, then closed"
    )
    func announcedBodyPastTheCap() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.post(["Content-Length": "101"]))
        let (response, body) = try #require(try Self.answer(on: channel))
        #expect(response.status == .payloadTooLarge)
        #expect(response.headers["Connection"] == ["close"])
        #expect(response.headers["X-Content-Type-Options"] == ["nosniff"])
        #expect(body == "The request's body is larger than 100 bytes, the most this server takes.\n")
        // The body the client sends anyway is read (a socket closed with bytes unread is reset,
        // and the client may lose the answer), passed on nowhere, and then the connection closes.
        try channel.writeInbound(Self.body(101))
        #expect(channel.isActive)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try Self.passedOn(channel).isEmpty)
        #expect(!channel.isActive)
    }

    @Test("a client that waits for 100 Continue is answered 413 at once; the connection closes at the body time-out")
    func announcedBodyNeverSent() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.post(["Content-Length": "5000", "Expect": "100-continue"]))
        #expect(try Self.answer(on: channel)?.0.status == .payloadTooLarge)
        channel.embeddedEventLoop.advanceTime(by: Self.limits.bodyTimeout - .milliseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
        #expect(try Self.passedOn(channel).isEmpty)
    }

    @Test("a body at the cap is passed on whole, announced or sent in chunks")
    func bodyAtTheCap() throws {
        for headers: HTTPHeaders in [["Content-Length": "100"], ["Transfer-Encoding": "chunked"]] {
            let channel = try Self.channel()
            try channel.writeInbound(Self.post(headers))
            try channel.writeInbound(Self.body(60))
            try channel.writeInbound(Self.body(40))
            try channel.writeInbound(HTTPServerRequestPart.end(nil))
            #expect(try Self.passedOn(channel).count == 4)
            try Self.answerEnds(channel)
            #expect(channel.isActive)
        }
    }

    @Test("a body sent in chunks past the cap is passed on no further, and the connection closes once it is answered")
    func chunkedBodyPastTheCap() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.post(["Transfer-Encoding": "chunked"]))
        try channel.writeInbound(Self.body(60))
        // The chunk that crosses the cap goes on, so that the reader sees the body is too large.
        try channel.writeInbound(Self.body(60))
        try channel.writeInbound(Self.body(1_000))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(try Self.passedOn(channel).count == 3)
        #expect(channel.isActive)
        try Self.answerEnds(channel)
        #expect(!channel.isActive)
    }

    @Test("an oversized request behind one still being answered waits, untimed, and is answered after it, in order")
    func announcedBodyPastTheCapWaitsForTheAnswerBefore() throws {
        let channel = try Self.channel()
        try channel.writeInbound(Self.head)
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        try channel.writeInbound(Self.post(["Content-Length": "5000"]))
        #expect(try Self.passedOn(channel).count == 2)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) == nil)
        // The answer in progress (an event stream, say) is not cut short by the refused one.
        channel.embeddedEventLoop.advanceTime(by: .seconds(3_600))
        #expect(channel.isActive)
        try Self.answerEnds(channel)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) != nil)
        #expect(try channel.readOutbound(as: HTTPServerResponsePart.self) != nil)
        let (response, _) = try #require(try Self.answer(on: channel))
        #expect(response.status == .payloadTooLarge)
        try channel.writeInbound(Self.body(5000))
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(!channel.isActive)
    }

    @Test("a request whose Host HTTP/1.1 refuses is answered 400 and the connection closes, nothing passed on")
    func malformedHost() throws {
        let channel = try Self.channel()
        try channel.writeInbound(
            HTTPServerRequestPart.head(
                HTTPRequestHead(
                    version: .http1_1, method: .GET, uri: "/",
                    headers: HTTPHeaders([("Host", "shop.example"), ("Host", "evil")]))))
        #expect(try Self.passedOn(channel).isEmpty)
        let (response, body) = try #require(try Self.answer(on: channel))
        #expect(response.status == .badRequest)
        #expect(body == "A request must carry one Host header; this one carried 2.\n")
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
        #expect(!channel.isActive)
    }
}
