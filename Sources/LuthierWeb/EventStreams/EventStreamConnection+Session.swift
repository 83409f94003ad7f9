import LuthierFeatures
import ServerMachinery

extension EventStreamConnection {
    /// The stream of a session: it keeps the session in use while it is open, and each tab's
    /// stream is drawn on the session's inspector as a lane of its own (`tab.<n>.patch`).
    init(
        session: Session, hub: EventStreamHub, start: Start = .fresh, client: String = "",
        reservation: EventStreamHub.Reservation? = nil, compressed: Bool = false
    ) {
        self.init(
            fragments: session.fragments, hub: hub, start: start, client: client, reservation: reservation,
            tap: session.shop.taps.map { EventStreamTap(Tap($0, "tab")) },
            compressed: compressed,
            opened: { session.streamOpened() }, closed: { session.streamClosed() }
        )
    }
}

extension EventStreamTap {
    /// Records a stream's events on `tap`'s lanes (the text of a patch only while recording).
    init(_ tap: Tap) {
        self.init { lane, event in
            switch event {
            case .subscribed: tap.record(lane, .subscription)
            case .wrote(let version, let bytes):
                // Written on the stream's own thread: its cause is the one noted with the version.
                guard tap.recorder.isRecording else { return }
                tap.record(
                    lane, .value, "version \(version), \(bytes) bytes",
                    cause: tap.recorder.cause(ofVersion: version)?.cause)
            case .completed: tap.record(lane, .completion)
            case .cancelled: tap.record(lane, .cancellation)
            }
        }
    }
}
