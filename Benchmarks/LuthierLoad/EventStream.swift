import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// One open event stream (`/events` of a session, or `/kiosk/events`), read incrementally.
///
/// A stream counts as open once its first `patch` arrived: that is when the server has done all
/// the work of a connected page. A stream carries at most one expectation at a time: "a patch
/// whose fragment `target` contains `needle`". Its arrival instant is taken when the event is
/// parsed, and the latency is recorded once the request's send instant is known too, whichever
/// comes last, so a patch that beats the `204` is still measured from the send.
final class EventStream: Sendable {
    private struct Expectation {
        var target: String
        var needle: String
        /// `"target":"<target>"` as the patch's bytes hold it, made once per expectation.
        var targetKey: [UInt8]
        var sentAt: ContinuousClock.Instant?
        var arrivedAt: ContinuousClock.Instant?
    }

    private struct State {
        var firstPatchAt: ContinuousClock.Instant?
        var endReason: String?
        var closing = false
        var expectation: Expectation?
        var latencies: [Duration] = []
        /// Body bytes received, as they came over the wire (compressed on a gzip stream).
        var wireBytes = 0
    }

    private struct Patch: Decodable {
        struct Fragment: Decodable {
            var target: String
            var html: String
        }
        var fragments: [Fragment]
    }

    private let channel: any Channel
    private let state = Mutex(State())

    private init(channel: any Channel) {
        self.channel = channel
    }

    /// Connects, sends the `GET`, and reads the stream in a task of its own until it ends.
    /// - Parameter gzip: ask for gzip, as browsers do (the events are then inflated as they come).
    static func open(client: LoadHTTPClient, path: String, cookie: String?, gzip: Bool = false) async throws
        -> EventStream
    {
        let connection = try await client.connect()
        let stream = EventStream(channel: connection.channel)
        let extra = [("Accept", "text/event-stream")] + (gzip ? [("Accept-Encoding", "gzip")] : [])
        let head = client.head(.GET, path, cookie: cookie, extra: extra, keepAlive: true)
        Task { await stream.run(connection, head: head) }
        return stream
    }

    var isOpen: Bool { state.withLock { $0.firstPatchAt != nil && $0.endReason == nil } }
    var endReason: String? { state.withLock { $0.closing ? nil : $0.endReason } }
    /// Whether an expectation is still waiting for its patch (or its send instant).
    var isBusy: Bool { state.withLock { $0.expectation != nil } }
    var latencies: [Duration] { state.withLock { $0.latencies } }

    /// The latencies so far, forgotten here (for a run that times two things one after the other).
    func takeLatencies() -> [Duration] {
        state.withLock { state in
            defer { state.latencies = [] }
            return state.latencies
        }
    }
    var wireBytes: Int { state.withLock { $0.wireBytes } }

    /// Waits for a patch with a fragment for `target` whose HTML contains `needle` ("" matches any).
    func expect(target: String, needle: String) {
        state.withLock {
            $0.expectation = Expectation(
                target: target, needle: needle, targetKey: Array("\"target\":\"\(target)\"".utf8))
        }
    }

    /// Records when the request that should cause the expected patch was written.
    func markSent(at instant: ContinuousClock.Instant) {
        state.withLock { state in
            state.expectation?.sentAt = instant
            Self.settle(&state)
        }
    }

    /// Drops an expectation whose request failed.
    func cancelExpectation() {
        state.withLock { $0.expectation = nil }
    }

    /// Closes the connection; the end is then not reported as a failure.
    func close() {
        state.withLock { $0.closing = true }
        channel.close(promise: nil)
    }

    private static func settle(_ state: inout State) {
        guard let expectation = state.expectation, let sent = expectation.sentAt,
            let arrived = expectation.arrivedAt
        else { return }
        state.latencies.append(arrived - sent)
        state.expectation = nil
    }

    private func run(_ connection: LoadHTTPClient.Connection, head: HTTPRequestHead) async {
        do {
            try await connection.executeThenClose { inbound, outbound in
                try await outbound.write(contentsOf: [.head(head), .end(nil)])
                var parser = ServerSentEventParser()
                var inflater: GzipInflater?
                for try await part in inbound {
                    switch part {
                    case .head(let responseHead):
                        if responseHead.status != .ok {
                            throw LoadError.failure("stream answered \(responseHead.status.code)")
                        }
                        if responseHead.headers["Content-Encoding"].contains("gzip") { inflater = try GzipInflater() }
                    case .body(let buffer):
                        state.withLock { $0.wireBytes += buffer.readableBytes }
                        let plain = try inflater?.inflate(buffer) ?? buffer
                        for event in parser.feed(plain) { receive(event) }
                    case .end:
                        throw LoadError.failure("stream ended by the server")
                    }
                }
            }
            end("stream closed")
        } catch {
            end("\(error)")
        }
    }

    private func end(_ reason: String) {
        state.withLock { if $0.endReason == nil { $0.endReason = reason } }
    }

    private func receive(_ event: ServerSentEventParser.Event) {
        guard event.name == "patch" else { return }
        let now = ContinuousClock.now
        let wanted = state.withLock { state -> Expectation? in
            if state.firstPatchAt == nil { state.firstPatchAt = now }
            guard let expectation = state.expectation, expectation.arrivedAt == nil else { return nil }
            return expectation
        }
        guard let wanted, event.contains(wanted.targetKey) else { return }
        let (target, needle) = (wanted.target, wanted.needle)
        // Any change of the target will do: the bytes say so without decoding the patch.
        if !needle.isEmpty {
            guard let patch = try? JSONDecoder().decode(Patch.self, from: event.data),
                patch.fragments.contains(where: { $0.target == target && $0.html.contains(needle) })
            else { return }
        }
        state.withLock { state in
            state.expectation?.arrivedAt = now
            Self.settle(&state)
        }
    }
}
