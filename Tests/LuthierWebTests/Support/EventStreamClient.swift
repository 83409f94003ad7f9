import Foundation
import NIOCore
import NIOHTTP1
import Synchronization
import TestSupport

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
    /// What a page following this stream shows, every patch read so far applied.
    private let page = Mutex(FollowedPage())

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
            if let event = parser.withLock({ $0.takeEvent() }) {
                if let patch = try? event.patch() { page.withLock { $0.apply(patch) } }
                return event
            }
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

    /// The next block, which must be a patch event; returns its id and its fragments as the page
    /// shows them once applied (whole, also where a list's edits were sent).
    func nextPatch() async throws -> (id: Int, patch: Patch) {
        let (id, patch) = try await nextSentPatch()
        return (id, shown(patch))
    }

    /// The next block, which must be a patch event; returns its id and payload as sent.
    func nextSentPatch() async throws -> (id: Int, patch: Patch) {
        let event = try await nextEvent()
        let patch = try event.patch()
        guard let id = event.id.flatMap({ Int($0) }) else { throw ReceivedEvent.NotAPatch(received: event) }
        return (id, patch)
    }

    /// Reads patches until one that touches `target` (skipping heartbeats and other changes);
    /// returns it as sent, with the bytes of its data (uncompressed).
    func nextSentPatch(touching target: String, within events: Int = 20) async throws -> (patch: Patch, bytes: Int) {
        for _ in 0..<events {
            let event = try await nextEvent()
            guard event.event == "patch" else { continue }
            let patch = try event.patch()
            if patch.targets.contains(target) { return (patch, event.data.joined(separator: "\n").utf8.count) }
        }
        throw EndOfStream()
    }

    /// What a page following this stream shows now.
    var shown: FollowedPage { page.withLock { $0 } }

    /// `patch`, read from this stream, as the page shows its targets now.
    func shown(_ patch: Patch) -> Patch { page.withLock { $0.shown(patch) } }

    func close() async {
        await connection.close()
    }

    struct EndOfStream: Error {}
}
