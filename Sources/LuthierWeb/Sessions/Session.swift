import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import ServerMachinery
import Synchronization

/// One customer's browser session, as the web sees it: the id its cookie carries, the shop it
/// holds (`ShopSession`, where the screens are composed), the fragments rendered from the shop's
/// output, and how recently it was used. Everything it holds is saved through the `SessionStore` after
/// each accepted change, so a restart finds it as it was.
public final class Session: Sendable {
    private struct Activity {
        var idleSweeps = 0
        /// Its open streams (pages and inspectors): a session with one is in use. The caps on
        /// them are the hub's (`streamCapKey`).
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
        /// Whether the shop is held for the turn under way (`takeTurn`): nothing it changes is
        /// shown until the turn has stored it.
        var heldForTurn = false
    }

    /// A page as last drawn for the session, with what it was drawn from: its template and the
    /// revision of the shown output (`ShopSession.shownRevision`). While the revision is the same,
    /// so is the page, and a reload is answered without building its cache key, hashing it or
    /// looking it up (which was most of a cached page's cost).
    ///
    /// The page is held weakly: the render cache bounds what pages cost in all, and a session
    /// must not keep alive one the cache let go.
    private struct DrawnPage {
        let template: String
        let revision: UInt64
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
        /// The session as stored (or, never stored, as it began): what a change that could not be
        /// stored is undone to, and what a save that would store the same skips.
        var lastStored: SessionSnapshot
        /// Changes undone (`rollbacks`).
        var rollbacks = 0
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
        saving = Mutex(Saving(base: snapshot.revision, stored: snapshot.revision > 0, lastStored: snapshot))
        fragments = FragmentStore(
            initial: SessionFragments.table.all(shop.currentOutput, renderer: renderer),
            navigation: shop.initialNavigation, announcements: SessionFragments.table.announcements,
            stopwatch: stopwatch)
    }

    /// What every open tab of the session shows: the shop's output as last rendered, without a
    /// change that is not stored yet. Pages are drawn from it.
    public var shown: SessionOutput { shop.shownOutput }

    /// The page `template` of the session, drawn by `draw` from nothing but the shown builder's and
    /// cart's outputs (the builder, the cart, the guide): the one drawn last when the shown output
    /// has not changed since (`DrawnPage`).
    ///
    /// The revision is read before drawing, so a page is remembered by a revision no newer than
    /// the output it shows: a change meanwhile makes the next request draw again, never show an
    /// older page.
    func page(drawnFromBuildAndCart template: String, draw: (Session) -> RenderedPage) -> RenderedPage {
        let (shop, drawn) = held.withLock { ($0.shop, $0.drawn) }
        let revision = shop.shownRevision
        if let drawn, drawn.revision == revision, drawn.template == template, let page = drawn.page {
            return page
        }
        let page = draw(self)
        held.withLock { held in
            guard held.shop === shop else { return }
            held.drawn = DrawnPage(template: template, revision: revision, page: page)
        }
        return page
    }

    /// A brand-new session's snapshot: random anonymous keys, the standard guitar, an empty cart.
    static func freshSnapshot() -> SessionSnapshot {
        SessionSnapshot(orderKey: SessionID.random().cookieValue, analyticsKey: SessionID.random().cookieValue)
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
    /// Nothing of the change is shown (to a tab, a page, the kiosk or analytics) until it is
    /// stored. A change whose save fails is undone: the session is put back as stored, so a
    /// refused change never happens, and trying it again makes it once.
    ///
    /// An error of `change` itself is thrown as it is, once what it did change is stored: a
    /// reducer's refusal changes nothing, but an order the workshop refused leaves the checkout
    /// knowing why, and that is shown. A failed save throws a `SaveFailure`.
    func act(_ change: @escaping Change) async throws {
        // While the session is recorded, the post is an input with a number of its own, which
        // its work carries into every lane it reaches (`TapCause`), the save that shows it too.
        try await TapCause.$current.withValue(shop.taps?.nextCause() ?? 0) { try await actNow(change) }
    }

    private func actNow(_ change: @escaping Change) async throws {
        await takeTurn()
        defer { endTurn() }
        var refusal: (any Error)?
        do {
            try await change(self)
        } catch {
            refusal = error
        }
        do {
            // A refused change is not made again on a session another instance stored meanwhile.
            try await saveHoldingTurn(replaying: refusal == nil ? change : nil)
        } catch {
            rollBackHoldingTurn()
            throw error
        }
        if let refusal { throw refusal }
    }

    /// Saves the session as it is now, in its turn: after a change nobody posted (a rate arriving,
    /// an order confirmed), and under a new id. Throws a `SaveFailure`; a checkout that arrived
    /// or ended and waited for this save is then undone, never shown.
    ///
    /// With `old`, the id the session had before its current one: its first save under the new id
    /// deletes the old in the same write. Returns whether it did (false when that save was made
    /// already, or there was nothing to save).
    @discardableResult
    func save(replacing old: SessionID? = nil) async throws -> Bool {
        await takeTurn()
        defer { endTurn() }
        do {
            return try await saveHoldingTurn(replaying: nil, replacing: old)
        } catch {
            // Progress already shown (a rate) stays, for the next save to carry; a checkout that
            // waited for this save is undone.
            if shop.holdsUnshownChange { rollBackHoldingTurn() }
            throw error
        }
    }

    /// How many times a change was undone because it could not be stored: a request that waited
    /// for a change made outside its turn (a checkout arriving) tells by it whether it was undone.
    var rollbacks: Int { saving.withLock { $0.rollbacks } }

    /// Puts the session back as stored, in place of a change that could not be stored (if it holds
    /// one). The caller holds the turn.
    private func rollBackHoldingTurn() {
        let current = shop
        let stored = saving.withLock { saving -> SessionSnapshot? in
            guard current.holdsUnshownChange || !current.snapshot(revision: 0).sameContent(as: saving.lastStored)
            else { return nil }
            saving.rollbacks += 1
            return saving.lastStored
        }
        guard let stored else { return }
        shop.taps?.record("session.output", .failure, "not stored: undone")
        replaceShop(with: stored)
    }

    /// Stores the session, a compare-and-set over the revision last stored, and lets go of what the
    /// store now holds. A session that holds nothing a new one would not is not stored (yet): a
    /// flood of cookie-less posts costs no rows; nor is one that holds just what is stored.
    ///
    /// When another instance stored the session since (a conflict), its snapshot replaces the
    /// shop here, `replay` (the change being saved) is made again on it, and the save is tried
    /// again. Without a replay, the stored session simply stands. A change made while the save
    /// was under way (an effect's answer) is stored too before the turn shows it. The caller holds
    /// the turn.
    @discardableResult
    private func saveHoldingTurn(replaying replay: Change?, replacing old: SessionID? = nil) async throws -> Bool {
        var conflicts = 0
        var rounds = 0
        var replaced = false
        while true {
            let current = shop
            // Read before the snapshot: the snapshot covers every change the mark counts.
            let mark = current.saveMark
            let taken: (id: SessionID, base: Int, snapshot: SessionSnapshot)? = saving.withLock { saving in
                let snapshot = current.snapshot(revision: saving.base + 1)
                guard saving.stored || snapshot.holdsSomething else { return nil }
                if saving.base > 0, snapshot.sameContent(as: saving.lastStored) { return nil }
                saving.stored = true
                return (identity.withLock { $0 }, saving.base, snapshot)
            }
            if let taken {
                let outcome: SessionSaveOutcome
                do {
                    if let old, !replaced, taken.base == 0 {
                        // The old id is deleted whatever the outcome: it must stop working.
                        outcome = try await factory.store.replace(old.storageKey, taken.id.storageKey, taken.snapshot)
                        replaced = true
                    } else {
                        outcome = try await factory.store.save(taken.id.storageKey, taken.base, taken.snapshot)
                    }
                } catch {
                    throw SaveFailure.unavailable(error)
                }
                if outcome == .conflict {
                    conflicts += 1
                    guard conflicts < Self.saveAttempts else {
                        // The change made again last is not stored: the session shows what is.
                        _ = try? await reloadHoldingTurn(evenIfSame: true)
                        throw SaveFailure.contended
                    }
                    let held: Bool
                    do {
                        held = try await reloadHoldingTurn()
                    } catch {
                        throw SaveFailure.unavailable(error)
                    }
                    guard held else { throw SaveFailure.gone }
                    guard let replay else { return replaced }
                    try await replay(self)
                    continue
                }
                saving.withLock { saving in
                    // A save that went out under an id replaced meanwhile says nothing of the new one.
                    if identity.withLock({ $0 }) == taken.id { saving.base = taken.snapshot.revision }
                    saving.lastStored = taken.snapshot
                }
            }
            current.releaseHeldForSaving(through: mark)
            rounds += 1
            guard current.changed(since: mark), rounds < Self.saveAttempts else { return replaced }
        }
    }

    /// Reads the session as stored when another instance says it saved `revision` (nil: some
    /// revision, not told) under `id`, and puts it in place of the shop if it is newer than what
    /// this instance holds. False if it was deleted (its id was replaced elsewhere): the session
    /// should leave memory.
    ///
    /// A notice of an id the session no longer has (its own last save under the id an order
    /// replaced, heard after the rotation) says nothing of it: nothing is read.
    func refresh(toRevision revision: Int?, of id: SessionID) async throws -> Bool {
        // A deletion's tombstone: nothing to read.
        guard revision != StoredSessionRevision.deleted else { return false }
        // Not told which: any stored one, if one was ever stored (a session never stored is not
        // in the store, and is not gone for that).
        let isNewer = { (saving: Saving) in
            self.identity.withLock { $0 } == id && (revision.map { $0 > saving.base } ?? saving.stored)
        }
        guard saving.withLock({ isNewer($0) }) else { return true }
        await takeTurn()
        defer { endTurn() }
        // This instance's own save of that revision may have been what held the turn, or the
        // rotation of the id.
        guard saving.withLock({ isNewer($0) }) else { return true }
        return try await reloadHoldingTurn()
    }

    /// Reads the stored session and, if newer (or, with `evenIfSame`, as new), puts it in place of
    /// the shop; false if it is gone. The caller holds the turn.
    private func reloadHoldingTurn(evenIfSame: Bool = false) async throws -> Bool {
        let id = identity.withLock { $0 }
        guard let snapshot = try await factory.store.load(id.storageKey)?.snapshot else { return false }
        let newer = saving.withLock { saving in
            guard identity.withLock({ $0 }) == id,
                snapshot.revision > saving.base || (evenIfSame && snapshot.revision == saving.base)
            else { return false }
            saving.base = snapshot.revision
            saving.lastStored = snapshot
            return true
        }
        if newer { replaceShop(with: snapshot) }
        return true
    }

    /// Puts the shop of `snapshot` in place of the one held: the old one closes (with whatever it
    /// held back), the new one is driven (if the old one was) and held for the turn (if the old
    /// one was), and every open tab is sent what differs from what it shows, as one change.
    private func replaceShop(with snapshot: SessionSnapshot) {
        let renderer = renderer
        let replaced: (old: ShopSession, new: ShopSession)? = held.withLock { held in
            guard !held.closed else { return nil }
            let old = held.shop
            held.shop = factory.shop(of: snapshot, taps: old.taps)
            // The new shop's output counts its revisions afresh.
            held.drawn = nil
            if held.heldForTurn { held.shop.hold() }
            if held.driven { start(held.shop) }
            return (old, held.shop)
        }
        guard let replaced else { return }
        let shown = replaced.old.shownOutput
        replaced.old.close()
        let change = SessionChange(previous: shown, current: replaced.new.shownOutput, source: .build)
        replaced.new.taps?.record("session.output", .value, "replaced: revision \(snapshot.revision) as stored")
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
        // Whoever holds the turn holds the shop: nothing changed in the turn shows before it is stored.
        held.withLock { held in
            held.heldForTurn = true
            return held.shop
        }.hold()
    }

    /// Lets go of the shop (what the turn stored is shown) and hands the turn to the next waiting,
    /// or frees it.
    private func endTurn() {
        let holding = held.withLock { held -> ShopSession? in
            guard held.heldForTurn else { return nil }
            held.heldForTurn = false
            return held.shop
        }
        holding?.release()
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
            render: { [taps = shop.taps] change in
                let patch = SessionFragments.table.changed(
                    from: change.previous, to: change.current, renderer: renderer)
                let note = taps?.isHighlighting == true ? taps?.causeDescription() : nil
                fragments.publish(patch, navigate: change.navigation, note: note) { version in
                    taps?.noteCause(ofVersion: version, targets: patch.map(\.target))
                }
            },
            // A save is a database write: it goes on a task of its own, for as long as it takes, so
            // the checkout's change is not held up by it.
            save: { Task { await self.saveInBackground() } })
    }

    /// Turns the inspector's "Highlight updates" on or off: while on, the session records (so each
    /// change has a cause) and each patch names the input that caused it, which every open page
    /// outlines what it updates with.
    func highlightUpdates(_ on: Bool) { shop.taps?.highlight(on) }

    /// Whether the session's pages outline what each change updates.
    var highlightsUpdates: Bool { shop.taps?.isHighlighting ?? false }

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

    /// What the hub counts this session's streams under, against its caps (its pages and
    /// inspectors): the same for every tab, and after an order gives the session a new id, which
    /// its open tabs go on following.
    var streamCapKey: String { orderKey }

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
