import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import Synchronization

/// One customer's browser session: its view models, the fragments rendered from their outputs,
/// and how recently it was used. Everything it holds is saved through the `SessionStore` after
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
    /// An anonymous key, separate from the cookie, stored with the session's orders so that the
    /// session can see them without their link (the cookie value itself is never stored).
    public let orderKey: String
    /// Another anonymous key, for analytics, so that analytics cannot be joined to orders.
    public let analyticsKey: String
    public let build: BuildViewModel
    public let cart: CartViewModel
    public let fragments: FragmentStore
    private let renderer: PageRenderer
    private let store: SessionStore
    private let analytics: AnalyticsClient
    private let logger: Logger
    /// Told of every change of this session's guitar (the kiosk shows what is being built).
    private let onBuilderActed: @Sendable (Guitar) -> Void
    /// The outputs the initial fragments were rendered from: the driver diffs against them first.
    private let initialOutput: BuildOutput
    private let initialCart: CartOutput
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
        discounts: [DiscountCode],
        renderer: PageRenderer,
        logger: Logger,
        onBuilderActed: @escaping @Sendable (Guitar) -> Void = { _ in }
    ) {
        identity = Mutex(id)
        self.onBuilderActed = onBuilderActed
        orderKey = snapshot.orderKey
        analyticsKey = snapshot.analyticsKey
        build = BuildViewModel(
            state: BuildState(guitar: snapshot.guitar),
            environment: environment,
            sessionKey: snapshot.orderKey,
            restoredCheckout: snapshot.checkout
        )
        cart = CartViewModel(
            cart: snapshot.cart,
            discount: snapshot.discount,
            discounts: discounts,
            settledCheckoutID: snapshot.settledCheckoutID,
            now: environment.now
        )
        self.renderer = renderer
        store = environment.sessions
        analytics = environment.analytics
        self.logger = logger
        // A restored snapshot has been stored (revision 1 or more); a fresh one has not.
        saving = Mutex(Saving(revision: snapshot.revision, stored: snapshot.revision > 0))
        initialOutput = build.currentOutput
        initialCart = cart.currentOutput
        var initial = BuildFragments.all(initialOutput, renderer: renderer)
        initial += CartFragments.all(initialCart, checkoutButton: initialOutput.checkoutButton, renderer: renderer)
        if let checkout = build.currentCheckout {
            initial += CheckoutFragments.changed(from: nil, to: checkout.currentOutput, renderer: renderer)
        }
        // A restored session with a checkout in progress: a page reconnecting from before the
        // restart is told to go there (its own history is not known here).
        fragments = FragmentStore(initial: initial, navigation: build.currentCheckout == nil ? nil : "/checkout")
    }

    /// A brand-new session's snapshot: random anonymous keys, the standard guitar, an empty cart.
    static func freshSnapshot() -> SessionSnapshot {
        SessionSnapshot(orderKey: SessionID.random().rawValue, analyticsKey: SessionID.random().rawValue)
    }

    /// Everything to save, as of now.
    private func snapshot(revision: Int) -> SessionSnapshot {
        let cart = cart.latestState
        return SessionSnapshot(
            orderKey: orderKey,
            analyticsKey: analyticsKey,
            guitar: build.latestState.guitar,
            cart: cart.cart,
            discount: cart.discount,
            checkout: build.currentCheckout.map { CheckoutSnapshot(state: $0.latestState) },
            settledCheckoutID: cart.settledCheckoutID,
            revision: revision
        )
    }

    /// Saves the session as it is now. The routes call it after every accepted change and answer
    /// only once it is stored: what the server said yes to survives a crash. A session that holds
    /// nothing a new one would not is not stored (yet): a flood of cookie-less posts costs no rows.
    func save() async throws {
        let taken: (key: String, snapshot: SessionSnapshot)? = saving.withLock { saving in
            saving.revision += 1
            let snapshot = self.snapshot(revision: saving.revision)
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

    /// The output driver: follows the builder, the cart and the checkout, and renders each
    /// change's fragments once, for every stream of the session. A new checkout also tells every
    /// open page to go to it, and leaving it sends them back to the builder. It also feeds the
    /// analytics recorder. Ends when the view models close or the task is cancelled.
    func drive() async {
        await withDiscardingTaskGroup { group in
            group.addTask { await self.recordAnalytics() }
            group.addTask { await self.followCart() }
            if let restored = build.currentCheckout {
                group.addTask { await restored.run() }
                group.addTask { await self.follow(restored) }
            }
            var previous = initialOutput
            for await output in build.outputs() {
                var navigate: String?
                if output.checkoutID != previous.checkoutID {
                    if let model = build.currentCheckout, model.checkout.id == output.checkoutID {
                        group.addTask { await model.run() }
                        group.addTask { await self.follow(model) }
                        navigate = "/checkout"
                    } else if output.checkoutID == nil {
                        navigate = "/"
                    }
                }
                if output.guitar != previous.guitar { onBuilderActed(output.guitar) }
                let cart = cart.currentOutput
                fragments.publish(
                    BuildFragments.changed(from: previous, to: output, renderer: renderer)
                        + CartFragments.changed(
                            from: (cart, previous.checkoutButton), to: (cart, output.checkoutButton),
                            renderer: renderer),
                    navigate: navigate
                )
                previous = output
            }
            group.cancelAll()
        }
    }

    /// The cart's fragments (the badge on every page, the cart page's parts). Each stream is
    /// combined with the latest value of the other (`withLatestFrom`): a cart change renders with
    /// the builder's current checkout button, and a builder change re-renders the cart's "Check
    /// out" when the checkout starts or fails, so that one change is always one patch.
    private func followCart() async {
        var previous = initialCart
        for await output in cart.outputs() {
            let button = build.currentOutput.checkoutButton
            fragments.publish(
                CartFragments.changed(from: (previous, button), to: (output, button), renderer: renderer))
            previous = output
        }
    }

    private func follow(_ checkout: CheckoutViewModel) async {
        var previous: CheckoutOutput?
        for await output in checkout.outputs() {
            fragments.publish(CheckoutFragments.changed(from: previous, to: output, renderer: renderer))
            if output.confirmation != nil, previous?.confirmation == nil {
                await cart.settle(checkout.checkout)
            }
            if previous != nil {
                await saveInBackground()
            }
            previous = output
        }
    }

    /// The second subscriber to the cart's actions: each applied action becomes an analytics
    /// event. It reads from a bounded buffer the cart never waits on, so a slow or failing
    /// database costs analytics, never the cart.
    private func recordAnalytics() async {
        for await applied in cart.appliedActions() {
            let event = AnalyticsEvent(
                action: applied.action.name,
                configuration: applied.action.configuration,
                at: applied.at,
                sessionKey: analyticsKey
            )
            do {
                try await analytics.record([event])
            } catch {
                logger.warning("A cart action was not recorded for analytics", metadata: ["error": "\(error)"])
            }
        }
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
        build.close()
        cart.close()
        fragments.finish()
    }
}
