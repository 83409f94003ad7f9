import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request as the test sends it: raw header names and values, so that `Host`,
/// `Origin` and malformed bodies are exactly what the test says.
struct TestRequest: Sendable {
    var method: HTTPMethod
    var path: String
    var headers: [(name: String, value: String)] = []
    var body: [UInt8]?
}

/// A whole response, read to its end.
struct TestHTTPResponse: Sendable, CustomStringConvertible {
    let head: HTTPResponseHead
    let body: [UInt8]

    var status: Int { Int(head.status.code) }
    var headers: HTTPHeaders { head.headers }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The single value of a header (nil if absent).
    func header(_ name: String) -> String? { head.headers.first(name: name) }

    /// Short enough for a failure message.
    var description: String {
        let excerpt = text.count > 300 ? String(text.prefix(300)) + "…" : text
        return "\(status) \(head.headers.map { "\($0.name): \($0.value)" }) \(excerpt.debugDescription)"
    }
}

/// A real TCP connection to the server that sends one request and hands the response over part by
/// part as the bytes arrive, so a test can read a streaming body incrementally.
final class HTTPTestConnection: Sendable {
    static let timeout: Duration = .seconds(10)

    private let channel: any Channel
    private let parts: AsyncTestQueue<HTTPClientResponsePart>
    private let sent: AsyncTestQueue<Void>
    private let pump: Task<Void, Never>

    private init(
        channel: any Channel,
        parts: AsyncTestQueue<HTTPClientResponsePart>,
        sent: AsyncTestQueue<Void>,
        pump: Task<Void, Never>
    ) {
        self.channel = channel
        self.parts = parts
        self.sent = sent
        self.pump = pump
    }

    /// Connects to 127.0.0.1:`port` and sends `request` (adding `Host` and `Content-Length`
    /// unless the request sets them).
    static func open(port: Int, request: TestRequest) async throws -> HTTPTestConnection {
        let asyncChannel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelOption(.allowRemoteHalfClosure, value: true)
            .connect(host: "127.0.0.1", port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(
                        wrappingChannelSynchronously: channel
                    )
                }
            }
        let parts = AsyncTestQueue<HTTPClientResponsePart>()
        let sent = AsyncTestQueue<Void>()
        let pump = Task {
            defer { sent.finish() }
            do {
                try await asyncChannel.executeThenClose { inbound, outbound in
                    var head = HTTPRequestHead(version: .http1_1, method: request.method, uri: request.path)
                    for header in request.headers { head.headers.add(name: header.name, value: header.value) }
                    if !head.headers.contains(name: "Host") {
                        head.headers.add(name: "Host", value: "127.0.0.1:\(port)")
                    }
                    if let body = request.body, !head.headers.contains(name: "Content-Length") {
                        head.headers.add(name: "Content-Length", value: String(body.count))
                    }
                    try await outbound.write(.head(head))
                    if let body = request.body, !body.isEmpty {
                        try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: body))))
                    }
                    try await outbound.write(.end(nil))
                    sent.push(())
                    for try await part in inbound {
                        parts.push(part)
                        if case .end = part { break }
                    }
                }
                parts.finish()
            } catch {
                parts.finish(throwing: error)
            }
        }
        return HTTPTestConnection(channel: asyncChannel.channel, parts: parts, sent: sent, pump: pump)
    }

    /// Returns once the whole request has been written to the socket (or the connection failed).
    func requestSent() async throws {
        _ = try await withTimeout(Self.timeout, waitingFor: "the request to be sent") { [sent] in
            try await sent.next()
        }
    }

    /// The response head, which must be the first part.
    func head() async throws -> HTTPResponseHead {
        let part = try await withTimeout(Self.timeout, waitingFor: "the response head") { [parts] in
            try await parts.next()
        }
        guard case .head(let head) = part else { throw UnexpectedPart(description: String(describing: part)) }
        return head
    }

    /// The next piece of body as it arrived, or nil at the end of the body (or of the connection).
    func nextBodyChunk(timeout: Duration = HTTPTestConnection.timeout) async throws -> ByteBuffer? {
        let part = try await withTimeout(timeout, waitingFor: "the next piece of the response body") { [parts] in
            try await parts.next()
        }
        switch part {
        case .body(let buffer): return buffer
        case .end, nil: return nil
        case .head(let head): throw UnexpectedPart(description: "a second head: \(head)")
        }
    }

    /// The whole response.
    func response() async throws -> TestHTTPResponse {
        let head = try await head()
        var body: [UInt8] = []
        while let chunk = try await nextBodyChunk() { body += Array(buffer: chunk) }
        return TestHTTPResponse(head: head, body: body)
    }

    /// Closes the socket, as a browser closing the tab does.
    func close() async {
        try? await channel.close()
        await pump.value
    }

    /// Sends only a FIN: the client is done sending but could still read.
    func closeOutput() async throws {
        try await channel.close(mode: .output)
    }

    struct UnexpectedPart: Error, CustomStringConvertible {
        let description: String
    }
}
