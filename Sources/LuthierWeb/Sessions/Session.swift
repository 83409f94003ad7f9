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
    /// The builder, the cart and the checkout, composed (LuthierFeatures).
    public let shop: ShopSession
    public var build: BuildViewModel { shop.build }
    public var cart: CartViewModel { shop.cart }
    /// The anonymous key orders of this session carry.
    public var orderKey: String { shop.orderKey }
    public let fragments: FragmentStore
    private let renderer: PageRenderer
    private let store: SessionStore
    private let logger: Logger
    private let activity = Mutex(Activity())
    private struct Saving {
        /// The revision of the latest snapshot taken; taken and incremented under one lock, so a
        /// higher revision always holds the newer state.
        var revision: Int
        /// Whether a snapshot was ever sent to the store. Until the session holds something, none
        /// is; once one was, every later one is too (one back at the standard guitar included).
        var stored: Bool
    }

    private let saving: Mutex<Saving>

    /// A session for `id` from a snapshot: a new one (fresh keys, standard guitar, empty cart) or
    /// one restored from the store.
    init(
        id: SessionID,
        snapshot: SessionSnapshot,
        environment: LuthierEnvironment,
        discounts: DiscountBook,
        soldOut: Set<StockedWood> = [],
        analytics: AnalyticsQueue,
        renderer: PageRenderer,
        logger: Logger,
        stopwatch: (@Sendable () -> Duration)? = nil,
        onBuilderActed: @escaping @Sendable (Guitar) -> Void = { _ in }
    ) {
        identity = Mutex(id)
        shop = ShopSession(
            snapshot: snapshot, environment: environment, discounts: discounts, soldOut: soldOut,
            analytics: analytics,
            onBuilderActed: onBuilderActed)
        self.renderer = renderer
        store = environment.sessions
        self.logger = logger
        // A restored snapshot has been stored (revision 1 or more); a fresh one has not.
        saving = Mutex(Saving(revision: snapshot.revision, stored: snapshot.revision > 0))
        fragments = FragmentStore(
            initial: SessionFragments.table.all(shop.currentOutput, renderer: renderer),
            navigation: shop.initialNavigation, stopwatch: stopwatch)
    }

    /// A brand-new session's snapshot: random anonymous keys, the standard guitar, an empty cart.
    static func freshSnapshot() -> SessionSnapshot {
        SessionSnapshot(orderKey: SessionID.random().rawValue, analyticsKey: SessionID.random().rawValue)
    }

    /// Saves the session as it is now. The routes call it after every accepted change and answer
    /// only once it is stored: what the server said yes to survives a crash. A session that holds
    /// nothing a new one would not is not stored (yet): a flood of cookie-less posts costs no rows.
    func save() async throws {
        let taken: (key: String, snapshot: SessionSnapshot)? = saving.withLock { saving in
            saving.revision += 1
            let snapshot = shop.snapshot(revision: saving.revision)
            guard saving.stored || snapshot.holdsSomething else { return nil }
            saving.stored = true
            return (identity.withLock { $0.storageKey }, snapshot)
        }
        guard let taken else { return }
        try await store.save(taken.key, taken.snapshot.revision, taken.snapshot)
    }

    /// The one rotation of the id for `occasion`: the first caller gets the old and the new id,
    /// already in force (so a concurrent caller, which gets nil, reads the new id at once).
    func claimRotation(for occasion: String) -> (old: SessionID, new: SessionID)? {
        rotation.withLock { last in
            guard last != occasion else { return nil }
            last = occasion
            let old = id
            let new = SessionID.random()
            replaceID(with: new)
            return (old, new)
        }
    }

    /// Gives the session a new id, taken under the same lock as a save's revision: a save either
    /// went out under the old id before, or goes out under the new one after.
    func replaceID(with new: SessionID) {
        saving.withLock { _ in identity.withLock { $0 = new } }
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
        shop.close()
        fragments.finish()
    }
}
