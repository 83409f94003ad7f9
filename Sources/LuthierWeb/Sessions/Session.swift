import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import Synchronization

/// One customer's browser session, as the web sees it: the id its cookie carries, the shop it
/// holds (`ShopSession`, where the screens are composed), the fragments rendered from the shop's
/// output, and how recently it was used. Everything it holds is saved through the `SessionStore` after
/// each accepted change, so a restart finds it as it was.
public final class Session: Sendable {
    private struct Activity {
        var idleSweeps = 0
        var openStreams = 0
        /// When it was last used, as the registry counts uses: the least recently used go first
        /// when the cap is reached.
        var lastUse: UInt64 = 0
    }

    /// The id its cookie carries. It is replaced when an order is placed (`SessionRegistry.rotate`),
    /// so an id planted in a customer's browser before does not follow the customer past it.
    public var id: SessionID { identity.withLock { $0 } }
    private let identity: Mutex<SessionID>
    /// What the id was last replaced for (the checkout whose order was placed).
    private let rotation = Mutex<String?>(nil)
    /// The builder, the cart and the checkout, composed (LuthierFeatures). Replaced whole when
    /// another instance saved the session (`refresh`): the tabs' streams stay open and show the
    /// stored state.
    public var shop: ShopSession { held.withLock { $0.shop } }
    private let held: Mutex<Held>
    public var build: BuildViewModel { shop.build }
    public var cart: CartViewModel { shop.cart }
    /// The anonymous key orders of this session carry.
    public var orderKey: String { shop.orderKey }
    public let fragments: FragmentStore
    private let renderer: PageRenderer
    private let factory: ShopFactory
    private let logger: Logger
    private let activity = Mutex(Activity())

    /// The shop held now, and whether its output is driven (and may be again once replaced).
    private struct Held {
        var shop: ShopSession
        var driven = false
        var closed = false
        /// The page last drawn from this shop's builder and cart; forgotten with the shop.
        var drawn: DrawnPage?
    }

    /// A page as last drawn for the session, with what it was drawn from: its template and the
    /// revisions of the builder's and the cart's states. While both revisions are the same, so is
    /// the page, and a reload is answered without building its cache key, hashing it or looking
    /// it up (which was most of a cached page's cost).
    ///
    /// The page is held weakly: the render cache bounds what pages cost in all, and a session
    /// must not keep alive one the cache let go.
    private struct DrawnPage {
        let template: String
        let build: UInt64
        let cart: UInt64
        weak var page: RenderedPage?
    }

    private struct Saving {
        /// The revision stored under the current id, as this instance last saved or read it; 0
        /// while none is stored. The next save stores `base + 1` over it (compare-and-set).
        var base: Int
        /// Whether a snapshot was ever stored. Until the session holds something, none is; once
        /// one was, every later one is too (one back at the standard guitar included, and one
        /// under a new id after an order, whose base is 0 again).
        var stored: Bool
        /// Whether a change, a save or a refresh holds the session's turn, and who waits for it:
        /// one at a time, so that a save's base is never stale because of this instance's own
        /// saves, and a refresh never comes between a change and its save.
        var busy = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let saving: Mutex<Saving>

    /// A session for `id` from a snapshot: a new one (fresh keys, standard guitar, empty cart) or
    /// one restored from the store.
    init(
        id: SessionID,
        snapshot: SessionSnapshot,
        factory: ShopFactory,
        taps: TapRecorder?,
        renderer: PageRenderer,
        logger: Logger,
        stopwatch: (@Sendable () -> Duration)? = nil
    ) {
        identity = Mutex(id)
        let shop = factory.shop(of: snapshot, taps: taps)
        held = Mutex(Held(shop: shop))
        self.factory = factory
        self.renderer = renderer
        self.logger = logger
        // A restored snapshot has been stored (revision 1 or more); a fresh one has not.
        saving = Mutex(Saving(base: snapshot.revision, stored: snapshot.revision > 0))
        fragments = FragmentStore(
            initial: SessionFragments.table.all(shop.currentOutput, renderer: renderer),
            navigation: shop.initialNavigation, stopwatch: stopwatch)
    }

    /// The page `template` of the session, drawn by `draw` from nothing but the builder's and the
    /// cart's outputs (the builder, the cart, the guide): the one drawn last when neither state
    /// has changed since (`DrawnPage`).
    ///
    /// The revisions are read before drawing, so a page is remembered by revisions no newer than
    /// the states it shows: a change meanwhile makes the next request draw again, never show
    /// an older page.
    func page(drawnFromBuildAndCart template: String, draw: (Session) -> RenderedPage) -> RenderedPage {
        let (shop, drawn) = held.withLock { ($0.shop, $0.drawn) }
        let build = shop.build.stateRevision
        let cart = shop.cart.stateRevision
        if let drawn, drawn.build == build, drawn.cart == cart, drawn.template == template, let page = drawn.page {
            return page
        }
        let page = draw(self)
        held.withLock { held in
            guard held.shop === shop else { return }
            held.drawn = DrawnPage(template: template, build: build, cart: cart, page: page)
        }
        return page
    }

    /// A brand-new session's snapshot: random anonymous keys, the standard guitar, an empty cart.
    static func freshSnapshot() -> SessionSnapshot {
        SessionSnapshot(orderKey: SessionID.random().rawValue, analyticsKey: SessionID.random().rawValue)
    }

    /// A change a post makes to the session, made again on the session as another instance stored
    /// it when the save meets that instance's save (the reducers are pure, so acting again on the
    /// newer state is the same decision made on it).
    typealias Change = @Sendable (Session) async throws -> Void

    /// Why a save gave up.
    enum SaveFailure: Error {
        /// Another instance saved the session every time this one tried (`saveAttempts` times).
        case contended
        /// The session was deleted in the store (its id was replaced on another instance).
        case gone
        /// The store failed (locked, full, unreachable).
        case unavailable(any Error)
    }

    /// How often a save reads the session again and retries after a conflict before giving up:
    /// more than the saves a customer's other tabs on other instances could make meanwhile, so
    /// that only a writer that never stops (a script) is refused.
    static let saveAttempts = 8

    /// Makes `change` and saves the session, in the session's turn: no other change, save or
    /// refresh of this session on this instance comes between them. The routes answer only once
    /// it is stored: what the server said yes to survives a crash.
    ///
    /// An error of `change` itself is thrown as it is (nothing is saved); a failed save throws a
    /// `SaveFailure`.
    func act(_ change: @escaping Change) async throws {
        await takeTurn()
        defer { endTurn() }
        try await change(self)
        try await saveHoldingTurn(replaying: change)
    }

    /// Saves the session as it is now, in its turn: after a change nobody posted (a rate arriving,
    /// an order confirmed), and under a new id. Throws a `SaveFailure`.
    func save() async throws {
        await takeTurn()
        defer { endTurn() }
        try await saveHoldingTurn(replaying: nil)
    }

    /// Stores the session, a compare-and-set over the revision last stored. A session that holds
    /// nothing a new one would not is not stored (yet): a flood of cookie-less posts costs no rows.
    ///
    /// When another instance stored the session since (a conflict), its snapshot replaces the
    /// shop here, `replay` (the change being saved) is made again on it, and the save is tried
    /// again. Without a replay, the stored session simply stands. The caller holds the turn.
    private func saveHoldingTurn(replaying replay: Change?) async throws {
        for _ in 0..<Self.saveAttempts {
            let taken: (id: SessionID, base: Int, snapshot: SessionSnapshot)? = saving.withLock { saving in
                let snapshot = shop.snapshot(revision: saving.base + 1)
                guard saving.stored || snapshot.holdsSomething else { return nil }
                saving.stored = true
                return (identity.withLock { $0 }, saving.base, snapshot)
            }
            guard let taken else { return }
            let outcome: SessionSaveOutcome
            do {
                outcome = try await factory.store.save(taken.id.storageKey, taken.base, taken.snapshot)
            } catch {
                throw SaveFailure.unavailable(error)
            }
            switch outcome {
            case .saved:
                saving.withLock { saving in
                    // A save that went out under an id replaced meanwhile says nothing of the new one.
                    if identity.withLock({ $0 }) == taken.id { saving.base = taken.snapshot.revision }
                }
                return
            case .conflict:
                let held: Bool
                do {
                    held = try await reloadHoldingTurn()
                } catch {
                    throw SaveFailure.unavailable(error)
                }
                guard held else { throw SaveFailure.gone }
                guard let replay else { return }
                try await replay(self)
            }
        }
        // The change made again last is not stored: the session shows what is.
        _ = try? await reloadHoldingTurn(evenIfSame: true)
        throw SaveFailure.contended
    }

    /// Reads the session as stored when another instance says it saved `revision` (nil: some
    /// revision, not told), and puts it in place of the shop if it is newer than what this
    /// instance holds. False if it was deleted (its id was replaced elsewhere): the session
    /// should leave memory.
    func refresh(toRevision revision: Int?) async throws -> Bool {
        // A deletion's tombstone: nothing to read.
        guard revision != StoredSessionRevision.deleted else { return false }
        // Not told which: any stored one, if one was ever stored (a session never stored is not
        // in the store, and is not gone for that).
        let isNewer = { (saving: Saving) in revision.map { $0 > saving.base } ?? saving.stored }
        guard saving.withLock({ isNewer($0) }) else { return true }
        await takeTurn()
        defer { endTurn() }
        // This instance's own save of that revision may have been what held the turn.
        guard saving.withLock({ isNewer($0) }) else { return true }
        return try await reloadHoldingTurn()
    }

    /// Reads the stored session and, if newer (or, with `evenIfSame`, as new), puts it in place of
    /// the shop; false if it is gone. The caller holds the turn.
    private func reloadHoldingTurn(evenIfSame: Bool = false) async throws -> Bool {
        let id = identity.withLock { $0 }
        guard let snapshot = try await factory.store.load(id.storageKey) else { return false }
        let newer = saving.withLock { saving in
            guard identity.withLock({ $0 }) == id,
                snapshot.revision > saving.base || (evenIfSame && snapshot.revision == saving.base)
            else { return false }
            saving.base = snapshot.revision
            return true
        }
        if newer { replaceShop(with: snapshot) }
        return true
    }

    /// Puts the shop of `snapshot` in place of the one held: the old one closes, the new one is
    /// driven (if the old one was), and every open tab is sent what differs, as one change.
    private func replaceShop(with snapshot: SessionSnapshot) {
        let renderer = renderer
        let replaced: ShopSession? = held.withLock { held in
            guard !held.closed else { return nil }
            let old = held.shop
            held.shop = factory.shop(of: snapshot, taps: old.taps)
            // The new shop's stores count their revisions afresh.
            held.drawn = nil
            if held.driven { start(held.shop) }
            return old
        }
        guard let replaced else { return }
        replaced.close()
        let change = SessionChange(previous: replaced.currentOutput, current: shop.currentOutput, source: .build)
        shop.taps?.record("session.output", .value, "refreshed: revision \(snapshot.revision) stored elsewhere")
        fragments.publish(
            SessionFragments.table.changed(from: change.previous, to: change.current, renderer: renderer),
            navigate: change.navigation)
    }

    /// Waits for the session's turn to change, save or refresh.
    private func takeTurn() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = saving.withLock { saving in
                guard saving.busy else {
                    saving.busy = true
                    return true
                }
                saving.waiting.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Hands the turn to the next waiting, or frees it.
    private func endTurn() {
        let next = saving.withLock { saving -> CheckedContinuation<Void, Never>? in
            guard !saving.waiting.isEmpty else {
                saving.busy = false
                return nil
            }
            return saving.waiting.removeFirst()
        }
        next?.resume()
    }

    /// The one rotation of the id for `occasion`: the first caller gets the old and the new id,
    /// already in force (so a concurrent caller, which gets nil, reads the new id at once), and
    /// the revision stored under the old one.
    func claimRotation(for occasion: String) -> (old: SessionID, new: SessionID, base: Int)? {
        rotation.withLock { last in
            guard last != occasion else { return nil }
            last = occasion
            let old = id
            let new = SessionID.random()
            let base = replaceID(with: new, base: 0)
            return (old, new, base)
        }
    }

    /// Gives the session a new id, under which `base` is stored (none, for a new one), taken under
    /// the same lock as a save's revision: a save either went out under the old id before, or goes
    /// out under the new one after. Returns the base of the id replaced.
    @discardableResult
    func replaceID(with new: SessionID, base: Int) -> Int {
        saving.withLock { saving in
            defer { saving.base = base }
            identity.withLock { $0 = new }
            return saving.base
        }
    }

    /// Saves after a change the customer did not post (a rate arriving, an order confirmed), when
    /// nobody waits for the answer: a failure is logged, and the next save carries the change.
    private func saveInBackground() async {
        do {
            try await save()
        } catch {
            logger.error("A session could not be saved", metadata: ["error": "\(error)"])
        }
    }

    /// Starts the output driver: each change of the session's combined output is rendered once,
    /// for every stream of the session (with the page every open tab goes to, when a checkout
    /// starts or ends), and what the checkout changes on its own is saved. It runs until the
    /// session closes, as callbacks of the session's screens: no task waits for a change.
    func drive() {
        held.withLock { held in
            guard !held.driven, !held.closed else { return }
            held.driven = true
            start(held.shop)
        }
    }

    /// Drives `shop`'s output into the fragments (called under `held`'s lock, so that a shop
    /// replaced at the same moment is never left undriven).
    private func start(_ shop: ShopSession) {
        let fragments = fragments
        let renderer = renderer
        shop.start(
            render: { change in
                fragments.publish(
                    SessionFragments.table.changed(from: change.previous, to: change.current, renderer: renderer),
                    navigate: change.navigation)
            },
            // A save is a database write: it goes on a task of its own, for as long as it takes, so
            // the checkout's change is not held up by it.
            checkoutProgressed: { Task { await self.saveInBackground() } })
    }

    /// Marks the session as used now, as the registry's `use`-th use.
    func touch(use: UInt64) {
        activity.withLock {
            $0.idleSweeps = 0
            $0.lastUse = use
        }
    }

    /// The session's last use, and whether a page follows it now (such a session is in use and
    /// never leaves memory to make room).
    var recency: (lastUse: UInt64, hasOpenStream: Bool) {
        activity.withLock { ($0.lastUse, $0.openStreams > 0) }
    }

    /// The session's open event streams (its live tabs).
    var openStreamCount: Int { activity.withLock { $0.openStreams } }

    func streamOpened() {
        activity.withLock {
            $0.openStreams += 1
            $0.idleSweeps = 0
        }
    }

    func streamClosed() {
        activity.withLock {
            $0.openStreams -= 1
            $0.idleSweeps = 0
        }
    }

    /// Counts one idle sweep and says whether the session has now been idle for more than `limit`
    /// sweeps: the first sweep after its last use may come at once, so only the sweeps after it
    /// each prove a full interval of idleness. A session with an open stream is in use.
    func sweep(limit: Int) -> Bool {
        activity.withLock { activity in
            guard activity.openStreams == 0 else {
                activity.idleSweeps = 0
                return false
            }
            activity.idleSweeps += 1
            return activity.idleSweeps > limit
        }
    }

    /// Ends the output driver and every stream. The session stays in the store: a later request
    /// with its cookie restores it.
    func close() {
        let shop = held.withLock { held in
            held.closed = true
            return held.shop
        }
        shop.close()
        fragments.finish()
    }
}
