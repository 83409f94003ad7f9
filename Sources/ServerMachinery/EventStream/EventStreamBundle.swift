import NIOCore

/// What one event-stream connection sends: one stream as it is (`GET /events`, `/kiosk/events`,
/// an order's, an inspector's), or several at once, each event tagged with its stream's number
/// (`GET /streams`).
///
/// A browser opens at most six HTTP/1.1 connections to a host. With a connection per stream, a
/// builder, a kiosk and four inspectors left none for a seventh tab, or for a click's post, which
/// waited in the browser's queue for ever. The browser's shared worker follows all its streams
/// on one bundle instead.
///
/// A bundle's events are the streams' own, each preceded by a `data: <tag>` line (so its data
/// reads the tag, a line end, then the event's own data: the shared bytes of a patch are sent
/// as they are, not copied to be tagged). It opens with `event: bundle` (its id, which the
/// browser's next bundle names to replace it, and the reconnection delay: the worker reconnects
/// itself, with each stream's own version), and says which streams it
/// could not open with `event: refused` (the tag, then the status and sentence their own URL would
/// have had).
package struct EventStreamBundle: Sendable {
    /// A stream of the bundle, and the number its events are tagged with (nil: the stream alone).
    package struct Part: Sendable {
        package let tag: Int?
        package let connection: EventStreamConnection

        package init(tag: Int?, connection: EventStreamConnection) {
            self.tag = tag
            self.connection = connection
        }
    }

    /// A stream the bundle could not open, and why.
    package struct Refusal: Sendable {
        package let tag: Int
        package let error: UserFacingError

        package init(tag: Int, error: UserFacingError) {
            self.tag = tag
            self.error = error
        }
    }

    package let parts: [Part]
    package let refusals: [Refusal]
    package let hub: EventStreamHub
    package let reconnectDelayMilliseconds: Int
    /// Whether the client accepts gzip: the connection is then one gzip stream.
    package let compressed: Bool
    /// Whether the events are tagged (a bundle) or the stream's own (a single stream's URL).
    package let isTagged: Bool
    /// A bundle's name, unguessable: its browser's next bundle names it to replace it
    /// (`replaces=`), and only that browser has seen it.
    package let id: String?

    /// One stream, sent as it is.
    package init(_ connection: EventStreamConnection) {
        parts = [Part(tag: nil, connection: connection)]
        refusals = []
        hub = connection.hub
        reconnectDelayMilliseconds = connection.reconnectDelayMilliseconds
        compressed = connection.compressed
        isTagged = false
        id = nil
    }

    /// Several streams, tagged, with those that could not be opened.
    package init(
        tagged parts: [Part], refusals: [Refusal], hub: EventStreamHub, compressed: Bool, id: String
    ) {
        self.id = id
        self.parts = parts
        self.refusals = refusals
        self.hub = hub
        reconnectDelayMilliseconds = hub.reconnectDelayMilliseconds
        self.compressed = compressed
        isTagged = true
    }

    /// The streams never start: what their routes started for them stops.
    package func unused() {
        for part in parts { part.connection.unused() }
    }

    /// Whether the answer should go out empty, as it is: a single stream whose store has already
    /// ended (its session is gone). A bundle always opens, if only to say what it refused.
    package var isOver: Bool {
        !isTagged && parts.allSatisfy { $0.connection.fragments.isFinished }
    }

    /// What the connection sends before any stream's events: the gzip header, the reconnection
    /// delay, and for a bundle its opening and its refusals.
    package func opening(encoder: inout EventStreamEncoder, into events: inout [ByteBuffer]) {
        if let opening = encoder.opening() { events.append(opening) }
        events.append(encoder.encode(ServerSentEvent.retry(milliseconds: reconnectDelayMilliseconds)))
        guard isTagged else { return }
        events.append(
            encoder.encode(ServerSentEvent.bundle(id: id ?? "", retryMilliseconds: reconnectDelayMilliseconds)))
        for refusal in refusals {
            events.append(encoder.encode(refused(refusal.tag, refusal.error)))
        }
    }

    /// The event saying that the stream tagged `tag` is not followed, and why.
    package func refused(_ tag: Int, _ error: UserFacingError) -> String {
        ServerSentEvent.refused(
            tag: tag, status: error.status.code, message: error.message, retryAfter: error.retryAfter)
    }

    /// What ends the connection: on a server's graceful shutdown, the hint of when to reconnect (so
    /// that a restarted server finds its pages coming back rather than a burst of retries at once),
    /// then the gzip trailer if the connection is compressed.
    package func ending(stopping: Bool, encoder: inout EventStreamEncoder, into events: inout [ByteBuffer]) {
        if stopping {
            events.append(encoder.encode(ServerSentEvent.stopping(retryMilliseconds: reconnectDelayMilliseconds)))
        }
        if let closing = encoder.closing() { events.append(closing) }
    }
}
