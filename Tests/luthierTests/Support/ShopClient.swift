import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An answer, read whole.
struct ShopResponse: Sendable, CustomStringConvertible {
    var status: Int
    var headers: HTTPHeaders
    var text: String

    func header(_ name: String) -> String? { headers.first(name: name) }

    /// The session id a `Set-Cookie: luthier_session=…` carries.
    var sessionCookie: String? {
        for value in headers["Set-Cookie"] {
            guard let range = value.range(of: "luthier_session=") else { continue }
            return String(value[range.upperBound...].prefix { $0 != ";" })
        }
        return nil
    }

    /// The order number the page shows (`<strong id="order-number">LU-…</strong>`).
    var orderNumber: String? {
        guard let range = text.range(of: #"id="order-number">"#) else { return nil }
        let number = text[range.upperBound...].prefix { $0 != "<" }
        return number.hasPrefix("LU-") ? String(number) : nil
    }

    var description: String { "\(status) \(text.prefix(300))" }
}

/// The customer's side: a real HTTP client (AsyncHTTPClient) speaking to a `luthier` process, the
/// way the browser script does (`X-Requested-With` on posts, so success is `204`).
///
/// Like a browser's cookie jar, it follows the new session id an order gives (`Set-Cookie` on
/// `/checkout/order`): a cookie the test first got is sent as its newest value.
final class ShopClient: Sendable {
    let http: HTTPClient
    private let replacedCookies = CookieReplacements()

    /// The newest value of a session cookie first seen as `cookie`.
    func newest(_ cookie: String) -> String { replacedCookies.newest(of: cookie) }

    init(connectionsPerHost: Int = 64) {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(
            idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: connectionsPerHost)
        // A dead server must fail requests at once, not be retried until the connect timeout.
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout = .init(connect: .seconds(3))
        http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    func shutdown() async {
        try? await http.shutdown()
    }

    func get(_ url: String, cookie: String? = nil, timeout: Duration = .seconds(20)) async throws -> ShopResponse {
        var request = HTTPClientRequest(url: url)
        if let cookie { request.headers.add(name: "Cookie", value: "luthier_session=\(newest(cookie))") }
        return try await send(request, timeout: timeout)
    }

    /// A form post as the page's script sends it.
    func post(
        _ url: String, form: String = "", cookie: String?, headers: [(String, String)] = [],
        timeout: Duration = .seconds(20)
    ) async throws -> ShopResponse {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "X-Requested-With", value: "fetch")
        let sent = cookie.map(newest)
        if let sent { request.headers.add(name: "Cookie", value: "luthier_session=\(sent)") }
        request.body = .bytes(ByteBuffer(string: form))
        let response = try await send(request, timeout: timeout)
        if url.hasSuffix("/checkout/order"), let sent, let renewed = response.sessionCookie, renewed != sent {
            replacedCookies.record(sent, replacedBy: renewed)
        }
        return response
    }

    /// A new session: `GET /` and the cookie it sets.
    func newSession(on server: String) async throws -> String {
        let page = try await get(server + "/")
        guard page.status == 200, let cookie = page.sessionCookie else {
            throw TestFailure("GET / gave no session: \(page)")
        }
        return cookie
    }

    private func send(_ request: HTTPClientRequest, timeout: Duration) async throws -> ShopResponse {
        let response = try await http.execute(request, timeout: .nanoseconds(Int64(timeout.nanoseconds)))
        let body = try await response.body.collect(upTo: 8 * 1024 * 1024)
        return ShopResponse(status: Int(response.status.code), headers: response.headers, text: String(buffer: body))
    }
}

extension Duration {
    var nanoseconds: Double {
        Double(components.seconds) * 1e9 + Double(components.attoseconds) / 1e9
    }

    var milliseconds: Int { Int((nanoseconds / 1e6).rounded()) }
}

/// An open event stream, read as it arrives by a task of its own until it ends.
final class EventStreamReader: Sendable {
    /// How a stream ended.
    enum End: Sendable, Equatable {
        /// The server finished the response (the last chunk): a browser's `EventSource` reconnects.
        case finished
        /// The connection broke, or the read was cancelled.
        case failed(String)
    }

    private struct State {
        var text = ""
        var end: End?
    }

    private let state = Mutex(State())
    private let reader = Mutex<Task<Void, Never>?>(nil)

    /// Opens `url` (with the session's cookie) and starts reading; throws unless it answers 200.
    static func open(_ url: String, cookie: String?, on client: ShopClient) async throws -> EventStreamReader {
        var request = HTTPClientRequest(url: url)
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let cookie { request.headers.add(name: "Cookie", value: "luthier_session=\(client.newest(cookie))") }
        let response = try await client.http.execute(request, deadline: .now() + .minutes(5))
        guard response.status == .ok else {
            let body = try await response.body.collect(upTo: 64 * 1024)
            throw TestFailure("\(url) answered \(response.status.code): \(String(buffer: body))")
        }
        let stream = EventStreamReader()
        let body = response.body
        let task = Task {
            do {
                for try await chunk in body {
                    stream.state.withLock { $0.text += String(buffer: chunk) }
                }
                stream.state.withLock { $0.end = .finished }
            } catch {
                stream.state.withLock { $0.end = .failed(String(describing: error)) }
            }
        }
        stream.reader.withLock { $0 = task }
        return stream
    }

    var text: String { state.withLock { $0.text } }
    var end: End? { state.withLock { $0.end } }

    func waitUntilText(_ what: String, limit: Duration = .seconds(20), _ condition: (String) -> Bool) async throws {
        try await waitUntil(what, limit: limit) { condition(self.text) || self.end != nil }
        guard condition(text) else {
            throw TestFailure("the stream ended before \(what): \(end.map { "\($0)" } ?? "")")
        }
    }

    /// Waits until the stream has ended, and says how.
    func waitForEnd(limit: Duration) async throws -> End {
        try await waitUntil("the event stream ends", limit: limit, pollEvery: .milliseconds(2)) { self.end != nil }
        return end ?? .failed("no end")
    }

    func cancel() {
        reader.withLock { $0?.cancel() }
    }
}

/// Whether a TCP connection to 127.0.0.1:`port` is refused right now (nobody listens).
func connectionRefused(port: Int) -> Bool {
    #if os(Linux)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
    #endif
    guard descriptor >= 0 else { return false }
    defer { close(descriptor) }
    return connectToLoopback(descriptor, port: port) != 0 && errno == ECONNREFUSED
}

/// `connect(2)` of `descriptor` to 127.0.0.1:`port`; 0 when connected, else see `errno`.
func connectToLoopback(_ descriptor: Int32, port: Int) -> Int32 {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = in_port_t(UInt16(port).bigEndian)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
        }
    }
}

/// A client socket driven by hand: for clients that misbehave on purpose (a reader that never
/// reads, a body that never comes).
final class RawConnection {
    let descriptor: Int32

    /// Connects to 127.0.0.1:`port`; a small `receiveBuffer` makes a reader that never reads
    /// stall the server's writes sooner.
    init(port: Int, receiveBuffer: Int32? = nil) throws {
        #if os(Linux)
            descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw TestFailure("socket() failed: \(errno)") }
        if var size = receiveBuffer {
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        guard connectToLoopback(descriptor, port: port) == 0 else {
            close(descriptor)
            throw TestFailure("connect() to port \(port) failed: \(errno)")
        }
    }

    deinit {
        close(descriptor)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        guard sent == bytes.count else { throw TestFailure("write() sent \(sent) of \(bytes.count) bytes") }
    }

    /// What has arrived and not been read yet (up to `limit` bytes, left in the socket), and the
    /// error of the last `recv`, for a failure's message.
    func peek(limit: Int = 300) -> String {
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = recv(descriptor, &buffer, limit, Int32(MSG_DONTWAIT | MSG_PEEK))
        let failure = count < 0 ? errno : 0
        return "\(count) bytes (errno \(failure)): \(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self))"
    }

    /// Bytes that have arrived and not been read yet.
    var unread: Int {
        var count: Int32 = 0
        return ioctl(descriptor, UInt(FIONREAD), &count) == 0 ? Int(count) : -1
    }

    /// The lines of `/proc/net/tcp` for this connection (both ends), for a failure's message.
    var tcpTableLines: [String] {
        guard let table = Self.tcpTable() else { return [] }
        let port = String(format: ":%04X ", localPort)
        return table.split(separator: "\n").filter { $0.contains(port) }.map(String.init)
    }

    /// The kernel's table of IPv4 TCP sockets, read to its end: a file of `/proc` claims a size of
    /// zero, and reading it as a regular file stops after the first page (a few dozen sockets), which
    /// a test run with many connections open passes.
    static func tcpTable() -> String? {
        guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return nil }
        defer { try? file.close() }
        return (try? file.readToEnd()).map { String(decoding: $0, as: UTF8.self) }
    }

    /// This end's port.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Bytes the server has queued to this connection and the kernel could not deliver yet (Linux:
    /// the `tx_queue` of the server's socket in /proc/net/tcp); nil when the socket is not listed.
    func serverSendQueue(serverPort: Int) -> Int? {
        guard let table = Self.tcpTable() else { return nil }
        let local = String(format: ":%04X", serverPort)
        let remote = String(format: ":%04X", localPort)
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 4, fields[1].hasSuffix(local), fields[2].hasSuffix(remote) else { continue }
            return fields[4].split(separator: ":").first.flatMap { Int($0, radix: 16) }
        }
        return nil
    }
}
