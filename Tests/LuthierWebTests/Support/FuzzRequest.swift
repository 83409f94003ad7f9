import NIOCore
import TestSupport

/// One request as the fuzzer writes it, byte for byte: the method, target and version as given,
/// the headers in order (values may hold any bytes), the body and how it is framed. Also what an
/// answer to it must look like (`FuzzOracle`).
struct FuzzRequest: Sendable, CustomStringConvertible {
    enum Framing: Sendable {
        /// No framing header: the request has no body.
        case none
        /// `Content-Length` with the body's length.
        case contentLength
        /// `Transfer-Encoding: chunked`, the body cut into `pieces` chunks.
        case chunked(pieces: Int)
        /// A `Content-Length` header with exactly this (possibly lying or malformed) value.
        case declared(String)
        /// `Content-Length` and `Transfer-Encoding: chunked` both (request smuggling's favourite).
        case both
    }

    enum HostHeader: Sendable {
        case normal
        case missing
        case duplicate(String)
        case custom(String)
    }

    /// What the request is, for the statistics and failure messages ("build: valid").
    var kind: String
    var method: String
    var target: [UInt8]
    var version = "HTTP/1.1"
    var host = HostHeader.normal
    var headers: [(name: String, value: [UInt8])] = []
    var body: [UInt8] = []
    var framing = Framing.none
    /// Bytes written after the request that are not a request the client waits for an answer to.
    var trailingBytes: [UInt8] = []
    /// Only the first request of a connection is answered like this (CONNECT).
    var needsFreshConnection = false
    /// Only the answer's head is read (its body may end only with the connection).
    var readsHeadOnly = false
    var oracle: FuzzOracle
    /// An event stream: read only its opening, then close the connection.
    var isEventStream = false
    /// The connection cannot be used after this request (HTTP/1.0, `Connection: close`, CONNECT).
    var closesConnection = false
    /// Session cookie values this request sent that the server did not issue (it must never
    /// adopt them), when any.
    var forgedCookies: [String] = []
    /// The pool session the request acts for, if any.
    var session: String?
    /// The value its cookie carried when sent: the pool session's newest id (an order replaces it).
    var sentSession: String?

    /// A post of `/checkout/order` (whatever the fuzzer made of it, its target in absolute form
    /// included): placing an order replaces the session's id.
    var isOrderPost: Bool {
        var path = Substring(String(decoding: target, as: UTF8.self))
        if path.hasPrefix("http://"), let slash = path.dropFirst("http://".count).firstIndex(of: "/") {
            path = path[slash...]
        }
        return method == "POST" && path.hasPrefix("/checkout/order")
    }

    /// Sends a session cookie as its newest id, as a browser's cookie jar would after an order
    /// (forged values are sent as they are).
    mutating func followRotations(_ jar: SessionCookieJar) {
        let prefix = TestApp.cookieName + "="
        for index in headers.indices where headers[index].name.lowercased() == "cookie" {
            let text = String(decoding: headers[index].value, as: UTF8.self)
            guard let range = text.range(of: prefix) else { continue }
            let value = String(text[range.upperBound...].prefix { $0 != ";" })
            guard !forgedCookies.contains(value) else { continue }
            let current = jar.current(of: value)
            sentSession = current
            if current != value {
                headers[index].value = Array(text.replacingOccurrences(of: value, with: current).utf8)
            }
        }
    }

    init(kind: String, method: String = "GET", target: String, oracle: FuzzOracle) {
        self.kind = kind
        self.method = method
        self.target = Array(target.utf8)
        self.oracle = oracle
    }

    mutating func header(_ name: String, _ value: String) {
        headers.append((name, Array(value.utf8)))
    }

    mutating func header(_ name: String, bytes value: [UInt8]) {
        headers.append((name, value))
    }

    var isHead: Bool { method == "HEAD" }

    var expectation: RawResponseExpectation {
        if readsHeadOnly { return .headOnly }
        return isEventStream ? .streamOpening(blocks: 2) : .whole(isHead: isHead)
    }

    /// Writes the request as it goes on the wire.
    func encode(port: Int, into buffer: inout ByteBuffer) {
        buffer.writeString(method)
        buffer.writeStaticString(" ")
        buffer.writeBytes(target)
        buffer.writeString(" \(version)\r\n")
        switch host {
        case .normal: buffer.writeString("Host: 127.0.0.1:\(port)\r\n")
        case .missing: break
        case .duplicate(let other): buffer.writeString("Host: 127.0.0.1:\(port)\r\nHost: \(other)\r\n")
        case .custom(let value): buffer.writeString("Host: \(value)\r\n")
        }
        for (name, value) in headers {
            buffer.writeString(name)
            buffer.writeStaticString(": ")
            buffer.writeBytes(value)
            buffer.writeStaticString("\r\n")
        }
        switch framing {
        case .none:
            buffer.writeStaticString("\r\n")
        case .contentLength:
            buffer.writeString("Content-Length: \(body.count)\r\n\r\n")
            buffer.writeBytes(body)
        case .declared(let value):
            buffer.writeString("Content-Length: \(value)\r\n\r\n")
            buffer.writeBytes(body)
        case .chunked(let pieces):
            buffer.writeStaticString("Transfer-Encoding: chunked\r\n\r\n")
            writeChunks(pieces: pieces, into: &buffer)
        case .both:
            buffer.writeString("Content-Length: \(body.count)\r\nTransfer-Encoding: chunked\r\n\r\n")
            writeChunks(pieces: 1, into: &buffer)
        }
        buffer.writeBytes(trailingBytes)
    }

    private func writeChunks(pieces: Int, into buffer: inout ByteBuffer) {
        let size = max(1, (body.count + max(pieces, 1) - 1) / max(pieces, 1))
        var start = 0
        while start < body.count {
            let end = min(start + size, body.count)
            buffer.writeString(String(end - start, radix: 16) + "\r\n")
            buffer.writeBytes(body[start..<end])
            buffer.writeStaticString("\r\n")
            start = end
        }
        buffer.writeStaticString("0\r\n\r\n")
    }

    /// The request as a failure message shows it: printable, long values cut short.
    var description: String {
        var text = "\(method) \(Self.printable(target, limit: 300)) \(version)"
        switch host {
        case .normal: break
        case .missing: text += " [no Host]"
        case .duplicate(let other): text += " [second Host: \(other)]"
        case .custom(let value): text += " [Host: \(value)]"
        }
        for (name, value) in headers {
            text += "\n  \(name): \(Self.printable(value, limit: 160))"
        }
        switch framing {
        case .none: break
        case .contentLength: text += "\n  [Content-Length: \(body.count)]"
        case .declared(let value): text += "\n  [Content-Length: \(value.debugDescription)]"
        case .chunked(let pieces): text += "\n  [chunked, \(pieces) pieces]"
        case .both: text += "\n  [Content-Length and chunked]"
        }
        if !body.isEmpty {
            text += "\n  body (\(body.count) bytes): \(Self.printable(body, limit: 300))"
        }
        return text
    }

    /// Bytes as an escaped string literal, at most `limit` bytes of them.
    static func printable(_ bytes: some Collection<UInt8>, limit: Int) -> String {
        var text = ""
        for byte in bytes.prefix(limit) {
            switch byte {
            case 0x20..<0x7F where byte != UInt8(ascii: "\\") && byte != UInt8(ascii: "\""):
                text.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16)
                text += "\\x" + (byte < 16 ? "0" + hex : hex)
            }
        }
        let more = bytes.count > limit ? "…(\(bytes.count) bytes)" : ""
        return "\"\(text)\"\(more)"
    }
}

/// What an answer to a fuzzed request must look like, beyond what every answer must (no server
/// error but a documented 503 with `Retry-After`).
struct FuzzOracle: Sendable {
    /// The statuses that may answer; nil for any that is not a server error.
    var statuses: Set<Int>?
    /// The server may close the connection instead of answering (the HTTP parser refuses the
    /// request: it answers 400 and closes, or just closes).
    var mayCloseWithoutAnswer = false
    /// Where a 303 must point.
    var location: String?
    /// The answer must not set a cookie (the request's session exists).
    var noNewCookie = false
    /// Text that must not appear in the body (file contents, unescaped markup).
    var forbiddenText: [String] = []
    /// The forbidden text is markup: it may appear in a plain-text answer that browsers may not
    /// sniff (`X-Content-Type-Options: nosniff`), where it is inert.
    var forbidsMarkupOnly = false
    /// A 200 must have this content type prefix.
    var contentType: String?

    static let anything = FuzzOracle()

    static func only(_ statuses: Set<Int>) -> FuzzOracle { FuzzOracle(statuses: statuses) }

    /// 4xx only (a client error, whichever).
    static let clientError = FuzzOracle(statuses: Set(400..<500))

    /// The HTTP parser refuses it: 400 and a closed connection.
    static let parserRejects = FuzzOracle(statuses: [400], mayCloseWithoutAnswer: true)
}
