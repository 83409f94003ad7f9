import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import ServerMachinery

/// The requests' cap on embedded channels: what is admitted, what is refused at once, what counts
/// and what frees a place.
@Suite("RequestAdmission")
struct RequestAdmissionTests {
    static func channel(_ requests: RequestsInProgress) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(RequestAdmission(requests: requests))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static let head = ConnectionGuardTests.head
    static let end = HTTPServerRequestPart.end(nil)
    static let answerHead = HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok))

    /// A whole request, head and end, taken in on `channel`.
    static func request(on channel: EmbeddedChannel) throws {
        try channel.writeInbound(head)
        try channel.writeInbound(end)
    }

    @Test("past the cap of requests in progress a request is answered 503 at once, and an answer's head frees a place")
    func requestsPastTheCapAreRefusedAtOnce() throws {
        let requests = RequestsInProgress(limit: 2)
        let (first, second, third) = (
            try Self.channel(requests), try Self.channel(requests), try Self.channel(requests)
        )
        try Self.request(on: first)
        try Self.request(on: second)
        #expect(requests.current == 2)
        try Self.request(on: third)
        // Not passed on to the application: answered here, on the event loop, and closed.
        #expect(try third.readInbound(as: HTTPServerRequestPart.self) == nil)
        let (refusal, body) = try #require(try ConnectionGuardTests.answer(on: third))
        #expect(refusal.status == .serviceUnavailable)
        #expect(refusal.headers["Retry-After"] == ["1"])
        #expect(refusal.headers["Connection"] == ["close"])
        #expect(body == "The shop is busy right now; please try again in a moment.\n")
        #expect(!third.isActive)
        #expect(requests.refused == 1)
        #expect(requests.current == 2)

        // The first request's answer begins: its place is free for the next request.
        try first.writeOutbound(Self.answerHead)
        #expect(requests.current == 1)
        let fourth = try Self.channel(requests)
        try Self.request(on: fourth)
        #expect(try fourth.readInbound(as: HTTPServerRequestPart.self) != nil)
        #expect(requests.current == 2)
    }

    @Test("a request refused while its body is still coming is answered at once; its body is read, then it closes")
    func aRefusedRequestsBodyIsReadBeforeTheClose() throws {
        let requests = RequestsInProgress(limit: 1)
        let (first, refused) = (try Self.channel(requests), try Self.channel(requests))
        try Self.request(on: first)
        try refused.writeInbound(ConnectionGuardTests.post(["Content-Length": "10"]))
        #expect(try ConnectionGuardTests.answer(on: refused)?.0.status == .serviceUnavailable)
        // Closed with the body unread, the socket would be reset, and the client, still writing
        // its body, could lose the answer (a test's post failed so: "I/O on closed channel").
        #expect(refused.isActive)
        try refused.writeInbound(ConnectionGuardTests.body(10))
        try refused.writeInbound(Self.end)
        #expect(try refused.readInbound(as: HTTPServerRequestPart.self) == nil)
        #expect(!refused.isActive)
        #expect(requests.current == 1)
    }

    @Test("a request whose body is still coming holds no place: slow senders cannot shut others out")
    func aRequestCountsOnceWhole() throws {
        let requests = RequestsInProgress(limit: 1)
        let slow = try (0..<5).map { _ in try Self.channel(requests) }
        for channel in slow {
            try channel.writeInbound(Self.head)
            try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "color=")))
        }
        #expect(requests.current == 0)
        let other = try Self.channel(requests)
        try Self.request(on: other)
        #expect(try other.readInbound(as: HTTPServerRequestPart.self) != nil)
        #expect(requests.current == 1)
        #expect(requests.refused == 0)
    }

    @Test(
        "a request answered before its last byte (refused on its head or its size) is not counted when the byte comes")
    func aRequestAnsweredEarlyIsNotCounted() throws {
        let requests = RequestsInProgress(limit: 1)
        let channel = try Self.channel(requests)
        try channel.writeInbound(Self.head)
        try channel.writeOutbound(
            HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .payloadTooLarge)))
        try channel.writeInbound(Self.end)
        #expect(requests.current == 0)
        // The next request on the connection counts as usual.
        try Self.request(on: channel)
        #expect(requests.current == 1)
    }

    @Test("a request whose connection closes before its answer frees its place")
    func aClosedConnectionFreesItsRequestsPlace() throws {
        let requests = RequestsInProgress(limit: 1)
        let leaving = try Self.channel(requests)
        try Self.request(on: leaving)
        #expect(requests.current == 1)
        _ = try leaving.finish()
        #expect(requests.current == 0)
        let next = try Self.channel(requests)
        try Self.request(on: next)
        #expect(try next.readInbound(as: HTTPServerRequestPart.self) != nil)
    }

    @Test("an event stream counts until its answer's head, not for as long as it stays open")
    func anEventStreamCountsUntilItsHead() throws {
        let requests = RequestsInProgress(limit: 1)
        let stream = try Self.channel(requests)
        try Self.request(on: stream)
        try stream.writeOutbound(Self.answerHead)
        try stream.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "data: 1\n\n"))))
        #expect(stream.isActive)
        #expect(requests.current == 0)
    }

    @Test("the liveness probe is served at the cap of requests in progress")
    func livenessIsServedAtTheCap() throws {
        let requests = RequestsInProgress(limit: 1)
        let busy = try Self.channel(requests)
        try Self.request(on: busy)
        let probe = try Self.channel(requests)
        try probe.writeInbound(
            HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/livez")))
        #expect(try probe.readInbound(as: HTTPServerRequestPart.self) != nil)
        #expect(requests.refused == 0)
        #expect(requests.current == 1)
    }
}
