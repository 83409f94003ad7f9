import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A minimal HTTP/1.1 client on SwiftNIO.
///
/// The load tool holds thousands of connections at once; NIO lets them all share one event loop
/// instead of a thread each, and unlike a pooling client it keeps every connection visible, so the
/// tool knows exactly how many sockets it holds and when each request was written.
struct LoadHTTPClient: Sendable {
    typealias Connection = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>
    typealias Inbound = NIOAsyncChannelInboundStream<HTTPClientResponsePart>

    /// A whole response, with the instant its request was written (after the connect).
    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: ByteBuffer
        var sentAt: ContinuousClock.Instant
        /// When the response's end was read.
        var answeredAt: ContinuousClock.Instant

        var text: String { String(buffer: body) }

        /// The `luthier_session=…` pair of a `Set-Cookie` header, if the server issued one.
        var sessionCookie: String? {
            for value in headers["set-cookie"] {
                if let pair = value.split(separator: ";").first, pair.hasPrefix("luthier_session=") {
                    return String(pair)
                }
            }
            return nil
        }
    }

    let group: any EventLoopGroup
    let host: String
    let port: Int
    /// The local addresses connections to a loopback server come from, in turn.
    private let sources: LoopbackSources?

    init(group: any EventLoopGroup, host: String, port: Int) {
        self.group = group
        self.host = host
        self.port = port
        sources = host == "127.0.0.1" ? LoopbackSources() : nil
    }

    /// Opens one connection with the HTTP/1.1 client codec in its pipeline.
    func connect() async throws -> Connection {
        var bootstrap = ClientBootstrap(group: group)
        if let source = sources?.next() { bootstrap = bootstrap.bind(to: source) }
        return
            try await bootstrap
            .connectTimeout(.seconds(5))
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
    }

    /// The request head every request of the tool uses: `Host`, optional cookie and form.
    func head(
        _ method: HTTPMethod, _ path: String, cookie: String? = nil, form: String? = nil,
        extra: [(String, String)] = [], keepAlive: Bool = false
    ) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        headers.add(name: "Host", value: "\(host):\(port)")
        if let cookie { headers.add(name: "Cookie", value: cookie) }
        if let form {
            headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            headers.add(name: "Content-Length", value: String(form.utf8.count))
        } else if method == .POST {
            headers.add(name: "Content-Length", value: "0")
        }
        headers.add(contentsOf: extra)
        headers.add(name: "Connection", value: keepAlive ? "keep-alive" : "close")
        return HTTPRequestHead(version: .http1_1, method: method, uri: path, headers: headers)
    }

    /// Sends one request on a fresh connection and reads the whole response, bounded by `timeout`
    /// seconds (the connection is closed when the time is up, which ends the read with an error).
    func send(
        _ method: HTTPMethod, _ path: String, cookie: String? = nil, form: String? = nil,
        extra: [(String, String)] = [], timeout: Double = 30
    ) async throws -> Response {
        let connection = try await connect()
        let channel = connection.channel
        let closer = channel.eventLoop.scheduleTask(in: .milliseconds(Int64(timeout * 1000))) {
            channel.close(promise: nil)
        }
        defer { closer.cancel() }
        let head = head(method, path, cookie: cookie, form: form, extra: extra)
        return try await connection.executeThenClose { inbound, outbound in
            let sentAt = ContinuousClock.now
            // One write for the whole request: the server may answer (and, for `Connection:
            // close`, close) as soon as it has the head, before a separate `end` could be written.
            var parts: [HTTPClientRequestPart] = [.head(head)]
            if let form { parts.append(.body(.byteBuffer(ByteBuffer(string: form)))) }
            parts.append(.end(nil))
            try await outbound.write(contentsOf: parts)
            var iterator = inbound.makeAsyncIterator()
            let response = try await Self.readResponse(&iterator, sentAt: sentAt)
            // The server closes first, as `Connection: close` asks: the connection's TIME_WAIT is
            // then on its side. Closed here first, each request left one on the tool's side, and
            // thousands of them (the streams' sockets beside them) made every connect search
            // the loopback address's ports: the tool's own connects ran late and timed out.
            while (try? await iterator.next()) != nil {}
            return response
        }
    }

    /// Reads one response (head, body, end) from a connection's inbound parts.
    static func readResponse(
        _ iterator: inout Inbound.AsyncIterator, sentAt: ContinuousClock.Instant
    ) async throws -> Response {
        var response = Response(status: 0, headers: [:], body: ByteBuffer(), sentAt: sentAt, answeredAt: sentAt)
        while let part = try await iterator.next() {
            switch part {
            case .head(let head):
                response.status = Int(head.status.code)
                response.headers = head.headers
            case .body(var buffer):
                response.body.writeBuffer(&buffer)
            case .end:
                response.answeredAt = .now
                return response
            }
        }
        throw LoadError.closedBeforeResponse
    }
}

/// Local addresses on the loopback network (127.0.0.1 to 127.0.0.32) for connections to a server
/// on 127.0.0.1, one after the other.
///
/// Every connection from one address to one server takes a port of that address's 28,000
/// ephemeral ones, and keeps it for a minute in TIME_WAIT after a close. Ten thousand streams
/// and thousands of posts a second from 127.0.0.1 alone left so few that each connect searched
/// the ports at length in the kernel (44 % of the tool's time) and ran late: the tool, not the
/// server, timed its own connects out. A browser is one address among many; so is the tool now.
final class LoopbackSources: Sendable {
    private let addresses: [SocketAddress]
    private let cursor = Atomic<Int>(0)

    init(count: Int = 32) {
        addresses = (1...count).compactMap { try? SocketAddress(ipAddress: "127.0.0.\($0)", port: 0) }
    }

    func next() -> SocketAddress? {
        guard !addresses.isEmpty else { return nil }
        return addresses[cursor.wrappingAdd(1, ordering: .relaxed).oldValue % addresses.count]
    }
}
