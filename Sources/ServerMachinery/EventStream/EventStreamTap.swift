/// Where an event stream tells whoever watches it (the shop's stream inspector draws one lane per
/// open stream) what it did: its start, each patch it wrote, and its end. The machinery knows no
/// recorder; the application wires one in.
package struct EventStreamTap: Sendable {
    package enum Event: Sendable {
        case subscribed
        /// A patch written: the version it brought the page to, and its size on the wire unencoded.
        case wrote(version: Int, bytes: Int)
        /// The stream ran its course (its store ended, the server stopped).
        case completed
        /// The stream was cut (its client left, its connection closed, it was replaced).
        case cancelled
    }

    /// Records `event` on the stream's lane (`<n>.patch`); called on the stream's event loop, so
    /// it must only note the event.
    package let record: @Sendable (_ lane: String, _ event: Event) -> Void

    package init(record: @escaping @Sendable (_ lane: String, _ event: Event) -> Void) {
        self.record = record
    }
}
