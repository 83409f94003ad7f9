import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing

@testable import ServerMachinery

/// The requests' cap on embedded channels: what is admitted, what is refused at once, and what
/// frees a place.
@Suite("RequestAdmission")
struct RequestAdmissionTests {
    static func channel(_ requests: RequestsInProgress) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(RequestAdmission(requests: requests))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static let head = ConnectionGuardTests.head

    static let answerHead = HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: .ok))

    @Test("past the cap of requests in progress a request is answered 503 at once, and an answer's head frees a place")
    func requestsPastTheCapAreRefusedAtOnce() throws {
        let requests = RequestsInProgress(limit: 2)
        let (first, second, third) = (
            try Self.channel(requests), try Self.channel(requests),
            try Self.channel(requests)
        )
        try first.writeInbound(Self.head)
        try second.writeInbound(Self.head)
        #expect(requests.current == 2)
        try third.writeInbound(Self.head)
        try third.writeInbound(HTTPServerRequestPart.end(nil))
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
        try fourth.writeInbound(Self.head)
        #expect(try fourth.readInbound(as: HTTPServerRequestPart.self) != nil)
        #expect(requests.current == 2)
    }

    @Test("a request whose connection closes before its answer frees its place")
    func aClosedConnectionFreesItsRequestsPlace() throws {
        let requests = RequestsInProgress(limit: 1)
        let leaving = try Self.channel(requests)
        try leaving.writeInbound(Self.head)
        #expect(requests.current == 1)
        _ = try leaving.finish()
        #expect(requests.current == 0)
        let next = try Self.channel(requests)
        try next.writeInbound(Self.head)
        #expect(try next.readInbound(as: HTTPServerRequestPart.self) != nil)
    }

    @Test("an event stream counts until its answer's head, not for as long as it stays open")
    func anEventStreamCountsUntilItsHead() throws {
        let requests = RequestsInProgress(limit: 1)
        let stream = try Self.channel(requests)
        try stream.writeInbound(Self.head)
        try stream.writeInbound(HTTPServerRequestPart.end(nil))
        try stream.writeOutbound(Self.answerHead)
        try stream.writeOutbound(HTTPServerResponsePart.body(.byteBuffer(ByteBuffer(string: "data: 1\n\n"))))
        #expect(stream.isActive)
        #expect(requests.current == 0)
    }

    @Test("the liveness probe is served at the cap of requests in progress")
    func livenessIsServedAtTheCap() throws {
        let requests = RequestsInProgress(limit: 1)
        let busy = try Self.channel(requests)
        try busy.writeInbound(Self.head)
        let probe = try Self.channel(requests)
        try probe.writeInbound(
            HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/livez")))
        #expect(try probe.readInbound(as: HTTPServerRequestPart.self) != nil)
        #expect(requests.refused == 0)
        #expect(requests.current == 1)
    }
}
