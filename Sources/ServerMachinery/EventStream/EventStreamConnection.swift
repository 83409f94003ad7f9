import Hummingbird
import NIOCore

/// One event stream (`GET /events`, `/kiosk/events`, an order's, the inspector's): what it follows
/// and what it sends. It sends the store's current fragments, then every change, until the client
/// goes away, the store finishes or the server shuts down; ``EventStreamChannelHandler`` does the
/// sending on the connection's event loop and releases all it held at the end.
package struct EventStreamConnection: Sendable {
    /// Where a stream starts sending from.
    package enum Start: Equatable, Sendable {
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
        package static func of(_ request: Request, in store: FragmentStore) -> Start {
            let claimed =
                request.headers[.lastEventID].map { Substring($0) }
                ?? request.uri.queryParameters.get("since").map { Substring($0) }
            guard let claimed else { return .fresh }
            return store.resumableVersion(claimed).map(Start.resume) ?? .unknown
        }
    }

    package let fragments: FragmentStore
    package let hub: EventStreamHub
    package let reconnectDelayMilliseconds: Int
    /// Called when the stream starts and when it has ended, whatever ended it.
    package let opened: @Sendable () -> Void
    package let closed: @Sendable () -> Void
    /// Called instead, when the stream never starts (a `HEAD` request, a store that has already
    /// ended, an answer replaced by an error): what the route started for it stops.
    package let unused: @Sendable () -> Void
    package let start: Start
    /// The budget it counts in and the client address it counts for.
    package let kind: EventStreamHub.Kind
    package let client: String
    /// The place its admission holds against the caps until it opens (`EventStreamHub.admit`).
    package let reservation: EventStreamHub.Reservation?
    /// Where each patch this stream writes is recorded, on a lane of its own (`tab.<n>.patch`):
    /// the inspector shows one lane per open tab.
    package let tap: EventStreamTap?
    /// Whether the client accepts gzip: the events then go as one gzip stream of shared
    /// compressed patches (`EventStreamEncoder`).
    package let compressed: Bool

    package init(
        fragments: FragmentStore,
        hub: EventStreamHub,
        reconnectDelayMilliseconds: Int? = nil,
        start: Start = .fresh,
        kind: EventStreamHub.Kind = .shop,
        client: String = "",
        reservation: EventStreamHub.Reservation? = nil,
        tap: EventStreamTap? = nil,
        compressed: Bool = false,
        opened: @escaping @Sendable () -> Void = {},
        closed: @escaping @Sendable () -> Void = {},
        unused: @escaping @Sendable () -> Void = {}
    ) {
        self.start = start
        self.kind = kind
        self.client = client
        self.reservation = reservation
        self.tap = tap
        self.compressed = compressed
        self.fragments = fragments
        self.hub = hub
        self.reconnectDelayMilliseconds = reconnectDelayMilliseconds ?? hub.reconnectDelayMilliseconds
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
    package func opening(tag: Int?, encoder: inout EventStreamEncoder, into events: inout [ByteBuffer]) -> Int {
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
    package func catchingUp(
        from sent: Int, tag: Int?, encoder: inout EventStreamEncoder, lane: String, into events: inout [ByteBuffer]
    ) -> Int {
        let changes = fragments.patch(since: sent)
        let tagLine = tag.map(ServerSentEvent.tag) ?? ""
        if let patch = changes.patch {
            tap?.record(lane, .wrote(version: changes.version, bytes: patch.bytes.readableBytes))
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
