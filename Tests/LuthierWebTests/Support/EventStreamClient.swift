import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// One block of a text/event-stream, up to its blank line: an event, a `retry:` hint or a comment.
struct ReceivedEvent: Sendable, Equatable {
    var id: String?
    var event: String?
    var data: [String] = []
    var retry: String?
    var comments: [String] = []

    var isEmpty: Bool { id == nil && event == nil && data.isEmpty && retry == nil && comments.isEmpty }

    /// The `patch` event's payload; fails if this block is anything else.
    func patch() throws -> Patch {
        guard event == "patch" else { throw NotAPatch(received: self) }
        return try JSONDecoder().decode(Patch.self, from: Data(data.joined(separator: "\n").utf8))
    }

    struct NotAPatch: Error, CustomStringConvertible {
        let received: ReceivedEvent
        var description: String { "Expected a patch event, received \(received)" }
    }
}

/// What a patch event carries.
struct Patch: Decodable, Sendable, Equatable {
    struct Item: Decodable, Sendable, Equatable {
        var target: String
        var html: String
    }

    var fragments: [Item]

    var targets: [String] { fragments.map(\.target) }

    func html(_ target: String) -> String? { fragments.first { $0.target == target }?.html }
}

/// Incremental text/event-stream parsing (WHATWG HTML, "Server-sent events"): bytes in, blocks out.
struct EventStreamParser: Sendable {
    private var pending: [UInt8] = []
    private var current = ReceivedEvent()
    private var ready: [ReceivedEvent] = []

    mutating func append(_ bytes: some Sequence<UInt8>) {
        pending.append(contentsOf: bytes)
        while let newline = pending.firstIndex(where: { $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) {
            var end = newline + 1
            if pending[newline] == UInt8(ascii: "\r") {
                // A CR at the very end may be the first half of a CRLF: wait for the next byte.
                guard end < pending.count else { return }
                if pending[end] == UInt8(ascii: "\n") { end += 1 }
            }
            let line = String(decoding: pending[..<newline], as: UTF8.self)
            pending.removeSubrange(..<end)
            process(line)
        }
    }

    mutating func takeEvent() -> ReceivedEvent? {
        ready.isEmpty ? nil : ready.removeFirst()
    }

    private mutating func process(_ line: String) {
        if line.isEmpty {
            if !current.isEmpty { ready.append(current) }
            current = ReceivedEvent()
            return
        }
        if line.hasPrefix(":") {
            current.comments.append(Self.dropOneSpace(line.dropFirst()))
            return
        }
        let field: Substring
        let value: String
        if let colon = line.firstIndex(of: ":") {
            field = line[..<colon]
            value = Self.dropOneSpace(line[line.index(after: colon)...])
        } else {
            field = Substring(line)
            value = ""
        }
        switch field {
        case "id": current.id = value
        case "event": current.event = value
        case "data": current.data.append(value)
        case "retry": current.retry = value
        default: break
        }
    }

    private static func dropOneSpace(_ text: Substring) -> String {
        String(text.first == " " ? text.dropFirst() : text)
    }
}

/// A `GET /events` over a real socket, read block by block as the server writes.
final class EventStreamClient: Sendable {
    let connection: HTTPTestConnection
    let head: HTTPResponseHead
    private let parser = Mutex(EventStreamParser())
    /// For a gzip stream (`Content-Encoding: gzip`): inflates each piece as it arrives, as a
    /// browser does.
    private let inflater: Mutex<GzipInflater?>
    /// Bytes of the body received so far, as they came over the wire.
    private let received = Mutex(0)

    init(connection: HTTPTestConnection, head: HTTPResponseHead) {
        self.connection = connection
        self.head = head
        let gzip = head.headers["Content-Encoding"].contains("gzip")
        inflater = Mutex(gzip ? try? GzipInflater() : nil)
    }

    /// Bytes of the body received so far (compressed, for a gzip stream).
    var bytesReceived: Int { received.withLock { $0 } }

    /// The next block, or nil when the body ends. The timeout only keeps a broken server from
    /// hanging the test.
    func next(timeout: Duration = HTTPTestConnection.timeout) async throws -> ReceivedEvent? {
        while true {
            if let event = parser.withLock({ $0.takeEvent() }) { return event }
            guard let chunk = try await connection.nextBodyChunk(timeout: timeout) else { return nil }
            received.withLock { $0 += chunk.readableBytes }
            let plain = try inflater.withLock { inflater in try inflater?.inflate(chunk) }
            parser.withLock { $0.append((plain ?? chunk).readableBytesView) }
        }
    }

    /// The next block, which must exist.
    func nextEvent() async throws -> ReceivedEvent {
        guard let event = try await next() else { throw EndOfStream() }
        return event
    }

    /// The next block, which must be a patch event; returns its id and payload.
    func nextPatch() async throws -> (id: Int, patch: Patch) {
        let event = try await nextEvent()
        let patch = try event.patch()
        guard let id = event.id.flatMap({ Int($0) }) else { throw ReceivedEvent.NotAPatch(received: event) }
        return (id, patch)
    }

    func close() async {
        await connection.close()
    }

    struct EndOfStream: Error {}
}
