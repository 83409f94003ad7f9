import Logging
import NIOCore
import Synchronization

/// Every open event stream of the server, across sessions: one heartbeat timer wakes them all
/// (rather than a timer per connection), and its counts prove that closed streams are released.
///
/// The streams are split into slices by their number, and each beat wakes one slice: beating
/// `slices` times per interval reaches every stream once per interval without waking them all at
/// once (at ten thousand streams, that burst alone delayed customers' changes by a tenth of a
/// second).
///
/// It also holds the caps: streams in all, for one session's tabs, and for one client address (so
/// that one client cannot hold every stream), with the kiosk displays in a budget of their own
/// (they need no session, so they would otherwise be the easy way to fill the shop's budget).
public final class EventStreamHub: ConditionWatched {
    /// What a stream follows. The kiosk displays count in a budget of their own; every other kind
    /// counts in the customers'.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A customer's page: the session's stream.
        case shop
        /// An order's page.
        case order
        /// A stream inspector (a session's or, for the admin, the shop's).
        case inspector
        /// A kiosk display.
        case kiosk

        /// The `kind` label of `luthier_open_event_streams`.
        public var metricLabel: String { self == .shop ? "session" : rawValue }

        /// Whether it counts against its browser session's caps: its pages and its inspectors.
        var countsForSession: Bool { self == .shop || self == .inspector }
    }

    /// The open streams as the hub counts them: what `waitUntil(_:)` waits on.
    package struct Counts: Sendable {
        package let open: Int
        package let kiosk: Int
        package let byKind: [Kind: Int]
        package let perClient: [String: Int]

        /// Streams open for `client`.
        package func ofClient(_ client: String) -> Int { perClient[client] ?? 0 }
    }

    /// Why a stream ended, as its log line says.
    public enum EndReason: String, Sendable {
        case clientLeft = "the client closed it"
        case connectionClosed = "its connection closed"
        case closedByServer = "the server closed its connection"
        case serverStopping = "the server is stopping"
        case storeFinished = "its session or store ended"
        case replaced = "its browser follows its streams on a new connection"

        /// Whether the stream ran its course (the tap records a completion) rather than being cut.
        package var isCompletion: Bool { self == .serverStopping || self == .storeFinished }
    }

    private struct Stream {
        package var waker: StreamWaker
        package var kind: Kind
        package var client: String
        /// The browser session it counts for (its pages and inspectors), if any.
        package var session: String?
    }

    private struct State {
        package var streams: [Int: Stream] = [:]
        package var nextID = 0
        package var kioskStreams = 0
        /// Open streams by what they follow.
        package var byKind: [Kind: Int] = [:]
        package var perClient: [String: Int] = [:]
        /// Inspector streams by client address.
        package var inspectorsPerClient: [String: Int] = [:]
        /// Streams refused since the start, by the cap that refused them.
        package var refusals: [String: Int] = [:]
        /// Places held for streams admitted and not open yet (``Reservation``), counted as open.
        package var reservedCustomers = 0
        package var reservedKiosks = 0
        package var reservedPerClient: [String: Int] = [:]
        package var reservedInspectorsPerClient: [String: Int] = [:]
        /// A session's streams (its pages and inspectors) and its inspectors, open or admitted
        /// and not open yet: held from the admission to the stream's end, under the lock the caps
        /// are checked under.
        package var heldPerSession: [String: Int] = [:]
        package var inspectorsHeldPerSession: [String: Int] = [:]

        /// Holds or gives back (`by` -1) a place for a stream of `kind` from `client`.
        mutating func reserve(_ kind: Kind, client: String, by change: Int) {
            if kind == .kiosk { reservedKiosks += change } else { reservedCustomers += change }
            Self.add(change, to: &reservedPerClient, at: client)
            if kind == .inspector { Self.add(change, to: &reservedInspectorsPerClient, at: client) }
        }

        /// Holds or gives back (`by` -1) a place for a stream of `kind` among `session`'s.
        mutating func hold(_ kind: Kind, session: String?, by change: Int) {
            guard let session, kind.countsForSession else { return }
            Self.add(change, to: &heldPerSession, at: session)
            if kind == .inspector { Self.add(change, to: &inspectorsHeldPerSession, at: session) }
        }

        /// Adds `change` to the count at `key`, forgetting a count that reaches zero.
        private static func add(_ change: Int, to counts: inout [String: Int], at key: String) {
            let left = (counts[key] ?? 0) + change
            counts[key] = left > 0 ? left : nil
        }
        /// How to end each open bundle (`GET /streams`), by its id: its browser's next bundle
        /// replaces it.
        package var bundles: [String: @Sendable () -> EventLoopFuture<Void>] = [:]
        /// Those waiting in `waitUntil(_:)` for the counts to meet their condition.
        package var waiters = ConditionWaiters<Counts>()

        var counts: Counts {
            Counts(open: streams.count, kiosk: kioskStreams, byKind: byKind, perClient: perClient)
        }

        /// Takes out the waiters whose condition the counts now meet, to be resumed once the lock
        /// is let go.
        mutating func satisfiedWaiters() -> [CheckedContinuation<Bool, Never>] {
            // Every stream's opening and end asks: the counts are made only when someone waits.
            guard !waiters.isEmpty else { return [] }
            let counts = self.counts
            return waiters.satisfied(by: counts)
        }
    }

    private let state = Mutex(State())
    /// How many beats make one round of every stream.
    public let slices: Int
    /// Customers' event streams open at once at most, in all and for one session; more are answered 503.
    public let maxStreams: Int
    public let maxStreamsPerSession: Int
    /// Kiosk streams open at once at most, apart from the customers'.
    public let maxKioskStreams: Int
    /// Streams of both kinds one client address may hold at once.
    public let maxStreamsPerClient: Int
    /// Inspector streams one session, and one client address, may hold at once: an inspector
    /// draws diagrams and records, so a few of them, not every stream a client may hold.
    public let maxInspectorsPerSession: Int
    public let maxInspectorsPerClient: Int
    /// Where each stream's opening and end are logged (its number, kind and the reason it ended:
    /// never its session or client).
    package let logger: Logger
    /// Told, for every patch a session's stream writes, how long after its change was published.
    package let patchWritten: @Sendable (Duration) -> Void
    /// Catch-ups that skipped versions: a stream whose reader fell behind got the newest state
    /// instead of every change.
    private let conflations = Atomic<Int>(0)
    /// Heartbeats since the start (`heartbeat`).
    private let beats = Atomic<Int>(0)

    /// How long every stream tells its client to wait before reconnecting (`retry:`), unless its
    /// route asks for another (the kiosk's adds jitter): one figure for the streams it admits.
    public let reconnectDelayMilliseconds: Int

    public init(
        slices: Int = 1, maxStreams: Int = .max, maxStreamsPerSession: Int = .max, maxKioskStreams: Int = .max,
        maxStreamsPerClient: Int = .max, maxInspectorsPerSession: Int = .max, maxInspectorsPerClient: Int = .max,
        reconnectDelayMilliseconds: Int = 2_000, logger: Logger = Logger(label: "luthier.streams"),
        patchWritten: @escaping @Sendable (Duration) -> Void = { _ in }
    ) {
        self.logger = logger
        self.patchWritten = patchWritten
        self.reconnectDelayMilliseconds = max(reconnectDelayMilliseconds, 0)
        self.slices = max(slices, 1)
        self.maxStreams = max(maxStreams, 1)
        self.maxStreamsPerSession = max(maxStreamsPerSession, 1)
        self.maxKioskStreams = max(maxKioskStreams, 1)
        self.maxStreamsPerClient = max(maxStreamsPerClient, 1)
        self.maxInspectorsPerSession = max(maxInspectorsPerSession, 1)
        self.maxInspectorsPerClient = max(maxInspectorsPerClient, 1)
    }

    /// Admits a new stream, holding its place against the caps until it opens (or is dropped
    /// unopened), or throws why it may not open: its budget, its client or its session already
    /// hold as many streams as allowed. The check and the hold are one step under the hub's lock,
    /// so streams asked for at the same instant cannot pass a cap together (they did: 226 of a
    /// client's cap of 200 kiosk streams opened from a thousand asked at once, and 6 of a
    /// session's 4 pages from 32).
    ///
    /// `session` names the browser session a page or inspector stream counts for (any text that
    /// stays the same for that session: its id changes when it orders, its tabs do not); its
    /// places are held from here to the stream's end.
    package func admit(
        kind: Kind = .shop, client: String = "", session: String? = nil
    ) throws(UserFacingError) -> Reservation {
        let refusal = state.withLock { state -> (cause: String, error: UserFacingError)? in
            let refusal =
                capRefusal(kind: kind, client: client, session: session, in: state)
                ?? inspectorRefusal(kind: kind, client: client, session: session, in: state)
            if let (cause, _) = refusal {
                state.refusals[cause, default: 0] += 1
            } else {
                state.reserve(kind, client: client, by: 1)
                state.hold(kind, session: session, by: 1)
            }
            return refusal
        }
        if let refusal { throw refusal.error }
        return Reservation(hub: self, kind: kind, client: client, session: session)
    }

    /// Gives back the place `reservation` held, if its stream did not take it.
    fileprivate func giveBack(_ reservation: Reservation) {
        guard reservation.settle() else { return }
        state.withLock { state in
            state.reserve(reservation.kind, client: reservation.client, by: -1)
            state.hold(reservation.kind, session: reservation.session, by: -1)
        }
    }

    /// Streams refused since the start, by cause: `streams` and `kiosk-streams` (the server's
    /// caps), `client-streams` (one address's), `session-streams` (one browser's).
    public var refusalsByCause: [String: Int] { state.withLock { $0.refusals } }

    /// Why a stream may not open past the server's, the client's or the session's cap, counting
    /// the places held for streams admitted and not open yet.
    private func capRefusal(kind: Kind, client: String, session: String?, in state: State) -> (
        cause: String, error: UserFacingError
    )? {
        let kindCount =
            kind == .kiosk
            ? state.kioskStreams + state.reservedKiosks
            : state.streams.count - state.kioskStreams + state.reservedCustomers
        let clientCount = (state.perClient[client] ?? 0) + (state.reservedPerClient[client] ?? 0)
        if kindCount >= (kind == .kiosk ? maxKioskStreams : maxStreams) {
            return (
                kind == .kiosk ? "kiosk-streams" : "streams",
                UserFacingError(
                    .serviceUnavailable,
                    kind == .kiosk
                        ? "Too many kiosk displays are open right now; this one will reconnect shortly."
                        : "Too many live pages are open right now; this one will reconnect shortly.",
                    retryAfter: 10, kind: .overload)
            )
        }
        if clientCount >= maxStreamsPerClient {
            return (
                "client-streams",
                UserFacingError(
                    .serviceUnavailable,
                    "This network address has \(clientCount) live pages of the shop open, the most allowed; close one "
                        + "to follow this one live.",
                    retryAfter: 30, kind: .overload)
            )
        }
        if kind.countsForSession, let session, let sessionStreams = state.heldPerSession[session],
            sessionStreams >= maxStreamsPerSession
        {
            return (
                "session-streams",
                UserFacingError(
                    .serviceUnavailable,
                    "This browser has \(sessionStreams) live pages of the shop open, the most allowed; close one to "
                        + "follow this one live.",
                    retryAfter: 30, kind: .overload)
            )
        }
        return nil
    }

    /// Why one more inspector may not open: its session's or its client's inspectors are at their cap.
    private func inspectorRefusal(kind: Kind, client: String, session: String?, in state: State) -> (
        cause: String, error: UserFacingError
    )? {
        guard kind == .inspector else { return nil }
        if let session, let sessionInspectors = state.inspectorsHeldPerSession[session],
            sessionInspectors >= maxInspectorsPerSession
        {
            return (
                "session-inspectors",
                UserFacingError(
                    .tooManyRequests,
                    "This browser has \(sessionInspectors) stream inspectors open, the most allowed; close one to "
                        + "follow this one live.",
                    retryAfter: 30, kind: .overload)
            )
        }
        let open = (state.inspectorsPerClient[client] ?? 0) + (state.reservedInspectorsPerClient[client] ?? 0)
        if open >= maxInspectorsPerClient {
            return (
                "client-inspectors",
                UserFacingError(
                    .tooManyRequests,
                    "This network address has \(open) stream inspectors open, the most allowed; close one to "
                        + "follow this one live.",
                    retryAfter: 30, kind: .overload)
            )
        }
        return nil
    }

    /// Streams one client address holds now.
    public func streams(ofClient client: String) -> Int { state.withLock { $0.perClient[client] ?? 0 } }

    /// Kiosk streams open now.
    public var openKioskStreams: Int { state.withLock { $0.kioskStreams } }

    /// Open event streams right now.
    public var openStreams: Int { state.withLock { $0.streams.count } }

    /// Counts a catch-up that skipped versions.
    package func conflated() {
        conflations.add(1, ordering: .relaxed)
    }

    /// Catch-ups since the start that skipped versions (the reader was slower than the changes).
    public var conflatedPatches: Int { conflations.load(ordering: .relaxed) }

    /// Open event streams right now, by what they follow (every kind, 0 for none).
    public var openStreamsByKind: [Kind: Int] {
        state.withLock { state in Dictionary(uniqueKeysWithValues: Kind.allCases.map { ($0, state.byKind[$0] ?? 0) }) }
    }

    /// Increases on every heartbeat tick; a stream sends a comment when it sees a newer one.
    ///
    /// An atomic of its own, not a field under the hub's lock: every woken stream reads it, and a
    /// thousand kiosks woken at once on both event loops would queue for that lock.
    public var heartbeat: Int { beats.load(ordering: .acquiring) }

    /// Counts a stream that opens, in place of the place its admission held (`reservation`).
    package func register(
        _ waker: StreamWaker, kind: Kind = .shop, client: String = "", reservation: Reservation? = nil
    ) -> Int {
        let (id, open, satisfied) = state.withLock { state in
            // The session's place, held since the admission, stays held until the stream's end
            // (`unregister`); the others move from held to open.
            if let reservation, reservation.settle() {
                state.reserve(reservation.kind, client: reservation.client, by: -1)
            }
            let id = state.nextID
            state.nextID += 1
            state.streams[id] = Stream(waker: waker, kind: kind, client: client, session: reservation?.session)
            if kind == .kiosk { state.kioskStreams += 1 }
            state.byKind[kind, default: 0] += 1
            state.perClient[client, default: 0] += 1
            if kind == .inspector { state.inspectorsPerClient[client, default: 0] += 1 }
            return (id, state.streams.count, state.satisfiedWaiters())
        }
        for waiter in satisfied { waiter.resume(returning: true) }
        logger.info("Event stream opened", metadata: ["stream": "\(id)", "kind": "\(kind)", "open": "\(open)"])
        return id
    }

    /// Ends every stream that counts for `session` (its pages and inspectors): each browser
    /// follows them again on a new connection, with the credentials it holds by then. After an
    /// order gives a session a new id, so only the browser that got the new id follows it on,
    /// not whoever else held the old one.
    package func endStreams(ofSession session: String) {
        let wakers = state.withLock { state in
            state.streams.values.compactMap { $0.session == session ? $0.waker : nil }
        }
        for waker in wakers { waker.finish() }
    }

    /// Records how to end the open bundle `id`: a call ends it, and its future completes once its
    /// connection has closed (and its streams no longer count).
    package func registerBundle(_ id: String, end: @escaping @Sendable () -> EventLoopFuture<Void>) {
        state.withLock { $0.bundles[id] = end }
    }

    /// Forgets the bundle `id`; called once its connection has closed.
    package func unregisterBundle(_ id: String) {
        state.withLock { _ = $0.bundles.removeValue(forKey: id) }
    }

    /// Ends the open bundle `id`, which a browser's new bundle replaces: the future completes once
    /// its connection has closed, so the new one's caps do not count the streams it follows again.
    /// Nil when there is no such bundle (it has already ended, or the id is not one).
    ///
    /// Without it, the streams of the bundle being replaced still counted for a moment, and a
    /// browser with four inspectors open that opened a fifth tab had them refused.
    package func replace(_ id: String) -> EventLoopFuture<Void>? {
        state.withLock { $0.bundles.removeValue(forKey: id) }?()
    }

    /// Logs a stream's end and why (its place in the hub goes when its connection has closed).
    package func ended(_ id: Int, reason: EndReason) {
        logger.info("Event stream ended: \(reason.rawValue)", metadata: ["stream": "\(id)"])
    }

    /// Forgets a stream; called once its connection has closed, so that the counts (and the
    /// caps) hold every connection a stream still occupies.
    package func unregister(_ id: Int) {
        let satisfied = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            guard let stream = state.streams.removeValue(forKey: id) else { return [] }
            if stream.kind == .kiosk { state.kioskStreams -= 1 }
            state.byKind[stream.kind, default: 1] -= 1
            let left = (state.perClient[stream.client] ?? 1) - 1
            state.perClient[stream.client] = left > 0 ? left : nil
            if stream.kind == .inspector {
                let inspectors = (state.inspectorsPerClient[stream.client] ?? 1) - 1
                state.inspectorsPerClient[stream.client] = inspectors > 0 ? inspectors : nil
            }
            state.hold(stream.kind, session: stream.session, by: -1)
            return state.satisfiedWaiters()
        }
        for waiter in satisfied { waiter.resume(returning: true) }
    }

    /// Returns once no stream is open (at once if none is), or when the task is cancelled.
    ///
    /// A stream's connection is not a task of the server's, so nothing else holds a graceful
    /// shutdown until the streams have sent their last event (``EventStreamDrain``).
    public func untilEveryStreamHasEnded() async {
        _ = await waitUntil { $0.open == 0 }
    }

    /// The counts, told to those waiting on them (`waitUntil`) at each change, so nobody has to
    /// look again and again (a test that waits for a closed tab's stream to be released, the
    /// drain at shutdown).
    package func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<Counts>, Counts) -> Result) -> Result {
        state.withLock { state in
            let counts = state.counts
            return body(&state.waiters, counts)
        }
    }

    /// Marks a heartbeat due and wakes the streams of the next slice (every stream, with one).
    /// The slice's streams are woken after the hub's lock is let go, as a store's are.
    public func beat() {
        let slice = beats.wrappingAdd(1, ordering: .acquiringAndReleasing).oldValue % slices
        let wakers = state.withLock { state in
            state.streams.compactMap { id, stream in id % slices == slice ? stream.waker : nil }
        }
        for waker in wakers { waker.wake() }
    }
}

extension EventStreamHub {
    /// The place ``EventStreamHub/admit(kind:client:session:)``
    /// holds for a stream until it opens: its stream's ``EventStreamHub/register(_:kind:client:reservation:)``
    /// takes it, and if the stream never opens (a `HEAD` request, an error after the admission, a
    /// client gone first), the last reference dropped gives it back.
    package final class Reservation: Sendable {
        fileprivate let hub: EventStreamHub
        fileprivate let kind: Kind
        fileprivate let client: String
        fileprivate let session: String?
        private let settled = Atomic<Bool>(false)

        fileprivate init(hub: EventStreamHub, kind: Kind, client: String, session: String?) {
            self.hub = hub
            self.kind = kind
            self.client = client
            self.session = session
        }

        /// True only the first time: the place is taken by its stream or given back, once.
        fileprivate func settle() -> Bool {
            !settled.exchange(true, ordering: .acquiringAndReleasing)
        }

        deinit {
            hub.giveBack(self)
        }
    }
}
