import Hummingbird
import LuthierFeatures
import NIOCore
import ServiceLifecycle

/// One open event stream (`GET /events`, `/kiosk/events`, an order's): sends the store's current
/// fragments, then every change, until the client goes away, the store finishes or the server
/// shuts down — and then releases all it held.
struct EventStreamConnection: Sendable {
    /// Where a stream starts sending from.
    enum Start: Equatable, Sendable {
        /// A page that shows nothing yet of this store: everything.
        case fresh
        /// A page that shows this store as of a version (its `Last-Event-ID`, or the version the
        /// page was rendered at): what changed since, and a navigation published since.
        case resume(Int)
        /// A page that shows an unknown point (a session restored after a restart): everything,
        /// and where its pages should be.
        case unknown

        /// From the request: `Last-Event-ID` (a browser's reconnect) first, then `since` (the
        /// version the page was rendered at, on its first connect).
        static func of(_ request: Request, in store: FragmentStore) -> Start {
            let claimed =
                request.headers[.lastEventID].map { Substring($0) }
                ?? request.uri.queryParameters.get("since").map { Substring($0) }
            guard let claimed else { return .fresh }
            return store.resumableVersion(claimed).map(Start.resume) ?? .unknown
        }
    }

    let fragments: FragmentStore
    let hub: EventStreamHub
    let reconnectDelayMilliseconds: Int
    let peerClosed: EventLoopFuture<Void>?
    /// Called when the stream starts and when it has ended, whatever ended it.
    let opened: @Sendable () -> Void
    let closed: @Sendable () -> Void
    let start: Start
    /// The budget it counts in and the client address it counts for.
    let kind: EventStreamHub.Kind
    let client: String
    /// Where each patch this stream writes is recorded, on a lane of its own (`tab.<n>.patch`):
    /// the inspector shows one lane per open tab.
    let tap: Tap?
    /// Whether the client accepts gzip: the events then go as one gzip stream of shared
    /// compressed patches (`EventStreamEncoder`).
    let compressed: Bool

    /// The stream of a session: it keeps the session in use while it is open.
    init(
        session: Session, hub: EventStreamHub, reconnectDelayMilliseconds: Int, peerClosed: EventLoopFuture<Void>?,
        start: Start = .fresh, client: String = "", compressed: Bool = false
    ) {
        self.init(
            fragments: session.fragments, hub: hub, reconnectDelayMilliseconds: reconnectDelayMilliseconds,
            peerClosed: peerClosed, start: start, client: client, tap: session.shop.taps.map { Tap($0, "tab") },
            compressed: compressed,
            opened: { session.streamOpened() }, closed: { session.streamClosed() }
        )
    }

    init(
        fragments: FragmentStore,
        hub: EventStreamHub,
        reconnectDelayMilliseconds: Int,
        peerClosed: EventLoopFuture<Void>?,
        start: Start = .fresh,
        kind: EventStreamHub.Kind = .shop,
        client: String = "",
        tap: Tap? = nil,
        compressed: Bool = false,
        opened: @escaping @Sendable () -> Void = {},
        closed: @escaping @Sendable () -> Void = {}
    ) {
        self.start = start
        self.kind = kind
        self.client = client
        self.tap = tap
        self.compressed = compressed
        self.fragments = fragments
        self.hub = hub
        self.reconnectDelayMilliseconds = reconnectDelayMilliseconds
        self.peerClosed = peerClosed
        self.opened = opened
        self.closed = closed
    }

    func run(writer: inout any ResponseBodyWriter) async throws {
        let (wakes, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard let storeID = fragments.addWaker(waker) else {
            try await writer.finish(nil)
            return
        }
        let hubID = hub.register(waker, kind: kind, client: client)
        let lane = "\(hubID).patch"
        tap?.record(lane, .subscription)
        opened()
        defer {
            waker.finish()
            fragments.removeWaker(storeID)
            hub.unregister(hubID)
            tap?.record(lane, Task.isCancelled ? .cancellation : .completion)
            closed()
        }
        peerClosed?.whenComplete { _ in waker.finish() }

        var heartbeat = hub.heartbeat
        var encoder = EventStreamEncoder(compressed: compressed)
        var sent = try await writeOpening(to: &writer, encoder: &encoder)
        try await withGracefulShutdownHandler {
            for await _ in wakes {
                let changes = fragments.patch(since: sent)
                sent = changes.version
                var text = ""
                if let location = changes.navigate {
                    text += ServerSentEvent.navigate(id: sent, location: location)
                }
                let beat = hub.heartbeat
                if beat != heartbeat {
                    heartbeat = beat
                    if changes.patch == nil && text.isEmpty { text = ServerSentEvent.heartbeat }
                }
                if let patch = changes.patch {
                    tap?.record(lane, .value, "version \(changes.version), \(patch.bytes.readableBytes) bytes")
                    try await writer.write(encoder.encode(patch))
                }
                if !text.isEmpty {
                    try await writer.write(encoder.encode(text))
                }
            }
        } onGracefulShutdown: {
            waker.finish()
        }
        if Task.isShuttingDownGracefully {
            // The browser reconnects on its own once the body ends; the hint says when, so that a
            // restarted server finds its pages coming back rather than a burst of retries at once.
            try await writer.write(
                encoder.encode(ServerSentEvent.stopping(retryMilliseconds: reconnectDelayMilliseconds)))
        }
        if let closing = encoder.closing() { try await writer.write(closing) }
        try await writer.finish(nil)
    }

    /// Writes the reconnect delay and what the page does not have yet (everything, or what
    /// changed since its version) with the current version as the event's id, and where its pages
    /// should be if that changed; returns the version sent.
    ///
    /// A function of its own so that the opening's buffers (the whole page's fragments, tens of
    /// kilobytes) are released as soon as they are written, not held for the life of the stream.
    private func writeOpening(to writer: inout any ResponseBodyWriter, encoder: inout EventStreamEncoder) async throws
        -> Int
    {
        let since: Int
        var navigate: String?
        switch start {
        case .fresh: since = 0
        case .resume(let version): since = version
        case .unknown:
            since = 0
            navigate = fragments.navigation
        }
        let initial = fragments.patch(since: since)
        if let opening = encoder.opening() { try await writer.write(opening) }
        try await writer.write(encoder.encode(ServerSentEvent.retry(milliseconds: reconnectDelayMilliseconds)))
        if let patch = initial.patch {
            try await writer.write(encoder.encode(patch))
        } else {
            // Nothing new: an empty patch still tells the page which version it now shows.
            try await writer.write(encoder.encode(ServerSentEvent.patch(id: initial.version, fragments: [])))
        }
        if let location = initial.navigate ?? navigate {
            try await writer.write(encoder.encode(ServerSentEvent.navigate(id: initial.version, location: location)))
        }
        return initial.version
    }
}
