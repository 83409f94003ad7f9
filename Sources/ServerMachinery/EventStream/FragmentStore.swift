import NIOCore
import Synchronization

/// A session's rendered page fragments and the event streams that follow them.
///
/// Every change bumps a version and stamps the fragments it rendered with it. A stream remembers
/// only the last version it sent; when woken it sends the fragments newer than that, each at its
/// newest HTML. That is conflation by construction: however far behind a reader falls, what it
/// owes is at most one copy of each fragment, so the server never buffers a backlog per reader.
/// Fragments are rendered once per change, not once per connection.
///
/// Versions are event ids, and a reconnecting browser sends back the last one it saw
/// (`Last-Event-ID`) to get only what changed since. A store starts its versions at a random
/// epoch in the upper 32 bits, so an id from another store (a session restored after a restart,
/// another instance) is recognised as foreign and answered with the whole state, never misread
/// as a point in this store's history.
public final class FragmentStore: ConditionWatched {
    private struct Entry {
        package let target: String
        package var html: String
        package var version: Int
    }

    private struct State {
        package var version = 0
        /// In page order (the order each target was first published). An array, searched by
        /// target, rather than a dictionary beside an array of the order: a session has a dozen
        /// or two fragments, and the two collections cost each session about 1 KiB where this one
        /// costs half that, with a search over so few no slower than hashing.
        package var entries: [Entry] = []
        /// The streams following, by id: an array searched by id rather than a dictionary, which
        /// would cost each session's store about 150 bytes for its one or two streams.
        package var wakers: [(id: Int, waker: StreamWaker)] = []
        package var nextWakerID = 0
        /// The latest "go to this page" command and the version it came with.
        package var navigation: (version: Int, location: String)?
        package var isFinished = false
        /// When the newest version was published, on `stopwatch`.
        package var publishedAt = Duration.zero
        /// The `patch` events already encoded for the current version, by the version a stream
        /// had: a thousand kiosks one change behind share one encoding (and one buffer).
        package var encoded: [Int: EncodedPatch] = [:]
        /// Those waiting in `waitUntil(_:)` for the count of streams to meet a condition.
        package var subscriberWaiters = ConditionWaiters<Int>()
        /// The newest change's edits to keyed lists, by target: what a stream one version behind
        /// is sent for those lists instead of their whole HTML. Kept for the newest version only,
        /// since an edit applies to the version just before it and a stream further behind may
        /// have missed an earlier one.
        package var edits: [(target: String, items: [FragmentItem])] = []
        /// What the newest change says of itself to the pages (the input that caused it, while
        /// its session highlights updates); nil for most changes.
        package var note: String?

        /// The fragments published after `version`, in page order: a list's edits for a stream
        /// one version behind, its whole HTML otherwise.
        package func fragments(since version: Int) -> [Fragment] {
            let oneBehind = version == self.version - 1 && !edits.isEmpty
            return entries.compactMap { entry in
                guard entry.version > version else { return nil }
                let items = oneBehind ? edits.first { $0.target == entry.target }?.items : nil
                return Fragment(target: entry.target, html: entry.html, items: items)
            }
        }
    }

    /// Encoded events kept per version at most; streams further behind are rare and encode alone.
    package static let encodedCacheLimit = 8

    private let state: Mutex<State>
    /// The first version of this store (its epoch, shifted into the upper bits).
    private let base: Int
    /// How a change of each announced target is told (shared by every store of one table).
    private let announcements: [String: FragmentAnnouncement]
    /// Time on the server's clock, for how long a published change takes to reach each stream;
    /// one shared by every session's store (nil: not measured).
    private let stopwatch: (@Sendable () -> Duration)?
    /// Called before every read, outside the store's lock, for a store whose producer renders
    /// only while someone follows it: it publishes here what it held back (nil: nothing held).
    private let beforeRead: (@Sendable (FragmentStore) -> Void)?

    /// - Parameters:
    ///   - navigation: where pages of this store should be, for a reconnecting page whose own
    ///     history is unknown here (a restored session with a checkout in progress).
    ///   - epoch: the store's epoch; random by default (tests choose one).
    ///   - stopwatch: the time on the server's clock, to measure how long a change takes to reach
    ///     each stream (`sinceNewestPublish`).
    ///   - beforeRead: called before each read of the store (a stream's, a page's), outside its
    ///     lock: a producer that skips rendering while nobody follows (`subscriberCount` is 0)
    ///     publishes what it skipped here, so that a reader never sees it behind. A producer
    ///     that skips must note it is behind before it looks at `subscriberCount`, and a stream
    ///     registers its waker before its first read: one of the two then catches the change.
    ///   - announcements: how a change of each announced target is told, written into every patch
    ///     that carries it (one dictionary shared by every store of a table).
    public init(
        initial fragments: [Fragment] = [], navigation: String? = nil, epoch: UInt32? = nil,
        announcements: [String: FragmentAnnouncement] = [:], stopwatch: (@Sendable () -> Duration)? = nil,
        beforeRead: (@Sendable (FragmentStore) -> Void)? = nil
    ) {
        self.stopwatch = stopwatch
        self.beforeRead = beforeRead
        self.announcements = announcements
        let epoch = epoch ?? UInt32.random(in: 1...UInt32(1 << 20))
        base = Int(epoch) << 32
        var initial = State()
        initial.version = base
        initial.entries.reserveCapacity(fragments.count)
        state = Mutex(initial)
        publish(fragments)
        if let navigation {
            state.withLock { $0.navigation = ($0.version, navigation) }
        }
    }

    /// The version a reconnecting stream may resume from: its `Last-Event-ID` when that is a
    /// version of this store's history, else nil (send everything).
    public func resumableVersion(_ lastEventID: Substring?) -> Int? {
        guard let lastEventID, let id = Int(lastEventID) else { return nil }
        let current = version
        return id >> 32 == base >> 32 && id >= base && id <= current ? id : nil
    }

    /// Where the pages should be now, if a navigation was ever published (or given at the start).
    public var navigation: String? { state.withLock { $0.navigation?.location } }

    /// The version of the latest change.
    public var version: Int {
        beforeRead?(self)
        return state.withLock { $0.version }
    }

    /// Whether the store has ended (its session is gone): no stream can follow it any more.
    public var isFinished: Bool { state.withLock { $0.isFinished } }

    /// How long ago the newest change was published, when the store has a stopwatch.
    package func sinceNewestPublish() -> Duration? {
        guard let stopwatch else { return nil }
        let publishedAt = state.withLock { $0.publishedAt }
        return stopwatch() - publishedAt
    }

    /// How many streams follow this store right now.
    public var subscriberCount: Int { state.withLock { $0.wakers.count } }

    /// Records a change and wakes every stream. An empty change is not a change.
    ///
    /// `navigate` tells the pages open now to go to another page (the checkout is ready). It is
    /// sent only to streams that were open before it: a page that connects later is already there.
    ///
    /// The streams are woken after the lock is let go: each wake schedules a catch-up on its
    /// event loop, which reads this store at once, and a thousand kiosks woken under the lock
    /// would each wait on it until the last had been told.
    ///
    /// `note` goes with the change to every page one change behind or more (`"note"` in the
    /// patch): what caused it, for a page that outlines what it updates.
    ///
    /// `versioned` is told the version the change became before any stream can read it (a recorder
    /// notes what caused it, for the streams that write it on their own threads). It runs under
    /// the store's lock, so it must not read the store.
    public func publish(
        _ fragments: [Fragment], navigate: String? = nil, note: String? = nil, versioned: (Int) -> Void = { _ in }
    ) {
        guard !fragments.isEmpty || navigate != nil else { return }
        let now = stopwatch?() ?? .zero
        let wakers = state.withLock { state -> [StreamWaker] in
            guard !state.isFinished else { return [] }
            state.version += 1
            state.publishedAt = now
            state.encoded.removeAll(keepingCapacity: true)
            if let navigate { state.navigation = (state.version, navigate) }
            state.edits.removeAll()
            state.note = note
            for fragment in fragments {
                if let items = fragment.items { state.edits.append((fragment.target, items)) }
                let entry = Entry(target: fragment.target, html: fragment.html, version: state.version)
                if let index = state.entries.firstIndex(where: { $0.target == fragment.target }) {
                    state.entries[index] = entry
                } else {
                    state.entries.append(entry)
                }
            }
            versioned(state.version)
            return state.wakers.map(\.waker)
        }
        for waker in wakers { waker.wake() }
    }

    /// The HTML of `target` as last published: what a page drawn now shows for it, the same
    /// bytes a stream opened now starts with.
    public func html(of target: String) -> String? {
        beforeRead?(self)
        return state.withLock { state in state.entries.first { $0.target == target }?.html }
    }

    /// The fragments changed after `version` (all of them for 0), in page order, and the version
    /// they bring the reader up to.
    public func changes(since version: Int) -> (version: Int, fragments: [Fragment]) {
        let changes = changesAndNavigation(since: version)
        return (changes.version, changes.fragments)
    }

    /// As `changes(since:)`, plus a navigation published after `version` (never for a new stream,
    /// which asks with version 0).
    public func changesAndNavigation(since version: Int) -> (version: Int, fragments: [Fragment], navigate: String?) {
        beforeRead?(self)
        return state.withLock { state in
            let fragments = state.fragments(since: version)
            var navigate: String?
            if version > 0, let navigation = state.navigation, navigation.version > version {
                navigate = navigation.location
            }
            return (state.version, fragments, navigate)
        }
    }

    /// As `changesAndNavigation(since:)`, with the fragments as a ready-to-write `patch` event
    /// (nil when none changed). The event is encoded once per `version` asked about and shared
    /// by every stream that asks the same (the escaping of a multi-kilobyte SVG is the costly part
    /// of sending a change, and the buffer's storage is shared, not copied).
    public func patchEvent(since version: Int) -> (version: Int, patch: ByteBuffer?, navigate: String?) {
        let changes = patch(since: version)
        return (changes.version, changes.patch?.bytes, changes.navigate)
    }

    /// As `patchEvent(since:)`, with the event as the streams share it (and its compression).
    package func patch(since version: Int) -> (version: Int, patch: EncodedPatch?, navigate: String?) {
        beforeRead?(self)
        let (current, cached, fragments, navigate, note) = state.withLock { state in
            var navigate: String?
            if version > 0, let navigation = state.navigation, navigation.version > version {
                navigate = navigation.location
            }
            if let cached = state.encoded[version] {
                return (state.version, Optional(cached), [Fragment](), navigate, String?.none)
            }
            let fragments = state.fragments(since: version)
            return (state.version, nil, fragments, navigate, version > 0 ? state.note : nil)
        }
        if let cached { return (current, cached, navigate) }
        guard !fragments.isEmpty else { return (current, nil, navigate) }
        let patch = EncodedPatch(
            ServerSentEvent.patchEvent(id: current, fragments: fragments, announcements: announcements, note: note))
        state.withLock { state in
            // Kept only where another stream may ask the same: a session's one tab would otherwise
            // hold a copy of its whole page until its next change.
            if state.version == current, state.wakers.count > 1, state.encoded.count < Self.encodedCacheLimit {
                state.encoded[version] = patch
            }
        }
        return (current, patch, navigate)
    }

    /// Registers a stream's wake-up signal: it is woken whenever there may be something new
    /// to send, and finished when the store finishes. Nil when the store has already finished.
    public func addWaker(_ waker: StreamWaker) -> Int? {
        let (id, met) = state.withLock { state -> (Int?, [CheckedContinuation<Bool, Never>]) in
            guard !state.isFinished else { return (nil, []) }
            let id = state.nextWakerID
            state.nextWakerID += 1
            state.wakers.append((id, waker))
            return (id, state.subscriberWaiters.satisfied(by: state.wakers.count))
        }
        for waiter in met { waiter.resume(returning: true) }
        return id
    }

    public func removeWaker(_ id: Int) {
        let met = state.withLock { state in
            state.wakers.removeAll { $0.id == id }
            return state.subscriberWaiters.satisfied(by: state.wakers.count)
        }
        for waiter in met { waiter.resume(returning: true) }
    }

    /// The count of streams following this store, told to those waiting on it (`waitUntil`) at
    /// each stream's start and end.
    package func withConditionWaiters<Result>(_ body: (inout ConditionWaiters<Int>, Int) -> Result) -> Result {
        state.withLock { state in
            let count = state.wakers.count
            return body(&state.subscriberWaiters, count)
        }
    }

    /// Ends every stream: the session is gone.
    public func finish() {
        let (wakers, met) = state.withLock { state in
            state.isFinished = true
            let wakers = state.wakers.map(\.waker)
            state.wakers.removeAll()
            return (wakers, state.subscriberWaiters.satisfied(by: 0))
        }
        for waker in wakers { waker.finish() }
        for waiter in met { waiter.resume(returning: true) }
    }
}
