import NIOCore
import NIOHTTP1
import NIOPosix

/// One HTTP/1.1 request as the test sends it: raw header names and values, so that `Host`,
/// `Origin` and malformed bodies are exactly what the test says.
package struct TestRequest: Sendable {
    package var method: HTTPMethod
    package var path: String
    package var headers: [(name: String, value: String)] = []
    package var body: [UInt8]?

    package init(method: HTTPMethod, path: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil)
    {
        self.method = method
        self.path = path
        self.headers = headers
        self.body = body
    }
}

/// A whole response, read to its end.
package struct TestHTTPResponse: Sendable, CustomStringConvertible {
    package let head: HTTPResponseHead
    package let body: [UInt8]

    package var status: Int { Int(head.status.code) }
    package var headers: HTTPHeaders { head.headers }
    package var text: String { String(decoding: body, as: UTF8.self) }

    /// The single value of a header (nil if absent).
    package func header(_ name: String) -> String? { head.headers.first(name: name) }

    /// Short enough for a failure message.
    package var description: String {
        let excerpt = text.count > 300 ? String(text.prefix(300)) + "…" : text
        return "\(status) \(head.headers.map { "\($0.name): \($0.value)" }) \(excerpt.debugDescription)"
    }

    package init(head: HTTPResponseHead, body: [UInt8]) {
        self.head = head
        self.body = body
    }
}

/// A real TCP connection to the server that sends one request and hands the response over part by
/// part as the bytes arrive, so a test can read a streaming body incrementally.
package final class HTTPTestConnection: Sendable {
    package static let timeout: Duration = .seconds(10)

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
    package static func open(port: Int, request: TestRequest) async throws -> HTTPTestConnection {
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
    package func requestSent() async throws {
        _ = try await withTimeout(Self.timeout, waitingFor: "the request to be sent") { [sent] in
            try await sent.next()
        }
    }

    /// The response head, which must be the first part.
    package func head() async throws -> HTTPResponseHead {
        let part = try await withTimeout(Self.timeout, waitingFor: "the response head") { [parts] in
            try await parts.next()
        }
        guard case .head(let head) = part else { throw UnexpectedPart(description: String(describing: part)) }
        return head
    }

    /// The next piece of body as it arrived, or nil at the end of the body (or of the connection).
    package func nextBodyChunk(timeout: Duration = HTTPTestConnection.timeout) async throws -> ByteBuffer? {
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
    package func response() async throws -> TestHTTPResponse {
        let head = try await head()
        var body: [UInt8] = []
        while let chunk = try await nextBodyChunk() { body += Array(buffer: chunk) }
        return TestHTTPResponse(head: head, body: body)
    }

    /// Closes the socket, as a browser closing the tab does.
    package func close() async {
        try? await channel.close()
        await pump.value
    }

    /// Sends only a FIN: the client is done sending but could still read.
    package func closeOutput() async throws {
        try await channel.close(mode: .output)
    }

    package struct UnexpectedPart: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }
}
