import Hummingbird
import LuthierFeatures
import NIOCore

/// One event stream (`GET /events`, `/kiosk/events`, an order's, the inspector's): what it follows
/// and what it sends. It sends the store's current fragments, then every change, until the client
/// goes away, the store finishes or the server shuts down; ``EventStreamChannelHandler`` does the
/// sending on the connection's event loop and releases all it held at the end.
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
    /// Called when the stream starts and when it has ended, whatever ended it.
    let opened: @Sendable () -> Void
    let closed: @Sendable () -> Void
    /// Called instead, when the stream never starts (a `HEAD` request, a store that has already
    /// ended, an answer replaced by an error): what the route started for it stops.
    let unused: @Sendable () -> Void
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
        session: Session, hub: EventStreamHub, reconnectDelayMilliseconds: Int,
        start: Start = .fresh, client: String = "", compressed: Bool = false
    ) {
        self.init(
            fragments: session.fragments, hub: hub, reconnectDelayMilliseconds: reconnectDelayMilliseconds,
            start: start, client: client, tap: session.shop.taps.map { Tap($0, "tab") },
            compressed: compressed,
            opened: { session.streamOpened() }, closed: { session.streamClosed() }
        )
    }

    init(
        fragments: FragmentStore,
        hub: EventStreamHub,
        reconnectDelayMilliseconds: Int,
        start: Start = .fresh,
        kind: EventStreamHub.Kind = .shop,
        client: String = "",
        tap: Tap? = nil,
        compressed: Bool = false,
        opened: @escaping @Sendable () -> Void = {},
        closed: @escaping @Sendable () -> Void = {},
        unused: @escaping @Sendable () -> Void = {}
    ) {
        self.start = start
        self.kind = kind
        self.client = client
        self.tap = tap
        self.compressed = compressed
        self.fragments = fragments
        self.hub = hub
        self.reconnectDelayMilliseconds = reconnectDelayMilliseconds
        self.opened = opened
        self.closed = closed
        self.unused = unused
    }

    /// What a stream sends first: what the page does not have yet (everything, or what changed
    /// since its version) with the current version as the event's id, and where its pages should
    /// be if that changed, each event tagged when the stream is one of a bundle's. Returns the
    /// version it brings the page to.
    ///
    /// The opening's buffers (the whole page's fragments, tens of kilobytes) are handed to the
    /// channel and not kept by the stream.
    func opening(tag: Int?, encoder: inout EventStreamEncoder, into events: inout [ByteBuffer]) -> Int {
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
        let tagLine = tag.map(ServerSentEvent.tag) ?? ""
        if let patch = initial.patch {
            if !tagLine.isEmpty { events.append(encoder.encode(tagLine)) }
            events.append(encoder.encode(patch))
        } else {
            // Nothing new: an empty patch still tells the page which version it now shows.
            events.append(encoder.encode(tagLine + ServerSentEvent.patch(id: initial.version, fragments: [])))
        }
        if let location = initial.navigate ?? navigate {
            events.append(encoder.encode(tagLine + ServerSentEvent.navigate(id: initial.version, location: location)))
        }
        return initial.version
    }

    /// What a woken stream owes a page that has `sent`: the fragments changed since (at their
    /// newest, however many changes that spans) and a navigation published since, each event
    /// tagged when the stream is one of a bundle's. Returns the version it brings the page to.
    func catchingUp(
        from sent: Int, tag: Int?, encoder: inout EventStreamEncoder, lane: String, into events: inout [ByteBuffer]
    ) -> Int {
        let changes = fragments.patch(since: sent)
        let tagLine = tag.map(ServerSentEvent.tag) ?? ""
        if let patch = changes.patch {
            tap?.record(lane, .value, "version \(changes.version), \(patch.bytes.readableBytes) bytes")
            if !tagLine.isEmpty { events.append(encoder.encode(tagLine)) }
            events.append(encoder.encode(patch))
            if changes.version - sent > 1 { hub.conflated() }
            if kind == .shop, let latency = fragments.sinceNewestPublish() { hub.patchWritten(latency) }
        }
        if let location = changes.navigate {
            events.append(encoder.encode(tagLine + ServerSentEvent.navigate(id: changes.version, location: location)))
        }
        return changes.version
    }
}
