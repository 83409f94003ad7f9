import Foundation
import LuthierDomain
import Synchronization

/// One customer's shop: the builder, the cart and the checkout composed into one output, and the
/// reactions that run between them. The web layer's `Session` holds one, and adds only what the
/// web needs: the cookie's identity, persistence and activity.
///
/// `start(render:checkoutProgressed:)` is the session's composition, written as the seeds would:
///
///     let checkout = build.outputs.map(\.checkoutID).removeDuplicates()
///         .flatMapLatest { id in checkoutModel(id)?.outputs ?? Just(nil) }
///     combineLatest(build.outputs, cart.outputs, checkout)
///         .map(SessionOutput.init)            // navigation follows from the checkout id
///         .sink(render)
///     build.outputs.map(\.guitar).removeDuplicates().sink(kiosk.builderActed)
///     checkout.filter(\.isConfirmed).sink(cart.settle)
///     cart.appliedActions.map(AnalyticsEvent.init).sink(analytics.enqueue)
///
/// Each upstream is followed by a sink (`sinkOutputs`) that folds its value into the combined
/// output under one lock and renders the change there, so changes are rendered in the order they
/// were combined, and one change of any screen is always one patch. The sinks are callbacks, called
/// by whoever changed the screen (a post, an effect's answer), so an idle session holds no task:
/// three loops waiting for the session's whole life cost 7 KiB of task frames per session.
public final class ShopSession: Sendable {
    public let build: BuildViewModel
    public let cart: CartViewModel
    /// The anonymous key orders of this session carry (the cookie value itself is never stored).
    public let orderKey: String
    /// Another anonymous key, for analytics, so that analytics cannot be joined to orders.
    public let analyticsKey: String
    /// The combined output, what of it is shown, and what is held back until it is stored.
    private let composition: Composition
    /// The composition's sinks, cancelled when the session closes.
    private let subscriptions = Mutex(Subscriptions())
    /// The session's own recorder (its inspector's lanes), if it has one.
    public let taps: TapRecorder?
    /// Told of every change of this session's guitar (the kiosk shows what is being built).
    private let onBuilderActed: @Sendable (Guitar) -> Void
    /// Where the cart's applied actions go once they are shown.
    private let analytics: AnalyticsQueue

    /// The shop of `snapshot`: a new one (standard guitar, empty cart) or one restored.
    ///
    /// - Parameter soldOut: the woods out of stock now, which the builder's pickers mark.
    public init(
        snapshot: SessionSnapshot,
        environment: LuthierEnvironment,
        discounts: DiscountBook,
        soldOut: Set<StockedWood> = [],
        analytics: AnalyticsQueue,
        onBuilderActed: @escaping @Sendable (Guitar) -> Void = { _ in }
    ) {
        orderKey = snapshot.orderKey
        analyticsKey = snapshot.analyticsKey
        taps = environment.taps
        build = BuildViewModel(
            state: BuildState(guitar: snapshot.guitar, soldOut: soldOut, guide: snapshot.guide),
            environment: environment,
            sessionKey: snapshot.orderKey,
            restoredCheckout: snapshot.checkout)
        // Made before the cart, whose applied actions it holds back; the cart's part is set below.
        let composition = Composition(
            SessionOutput(
                build: build.currentOutput, cart: CartOutput(cart: .empty, discount: nil),
                checkout: build.currentCheckout?.currentOutput))
        self.composition = composition
        cart = CartViewModel(
            cart: snapshot.cart, discount: snapshot.discount, discounts: discounts,
            settledCheckoutID: snapshot.settledCheckoutID, now: environment.now,
            taps: environment.taps,
            // Each applied action becomes an analytics event, under the analytics key only.
            // An action held with the rest of a change is counted once that change is stored.
            applied: { [analyticsKey = snapshot.analyticsKey] applied in
                let event = AnalyticsEvent(
                    action: applied.action.name, configuration: applied.action.configuration, at: applied.at,
                    sessionKey: analyticsKey)
                if composition.holdBack(event) { analytics.enqueue(event) }
            })
        self.analytics = analytics
        self.onBuilderActed = onBuilderActed
        composition.startCart(cart.currentOutput)
    }

    /// The combined output as last folded, shown or not.
    public var currentOutput: SessionOutput { composition.state.withLock { $0.latest } }

    /// The combined output as last rendered: what every open tab shows, and what a page must show.
    /// While a change is held (`hold()`), the change is not in it.
    ///
    /// Before the composition runs (`start`), nothing is rendered, and this is the screens' output
    /// now.
    public var shownOutput: SessionOutput {
        let (started, shown) = composition.state.withLock { ($0.render != nil, $0.shown) }
        guard started else {
            return SessionOutput(
                build: build.currentOutput, cart: cart.currentOutput, checkout: build.currentCheckout?.currentOutput)
        }
        return shown
    }

    /// How many times the shown output has changed: a page drawn from `shownOutput` is the same
    /// while this is. Before the composition runs, the screens' own revisions stand for it.
    public var shownRevision: UInt64 {
        let (started, revision) = composition.state.withLock { ($0.render != nil, $0.shownRevision) }
        guard started else { return build.stateRevision &* 1_000_003 &+ cart.stateRevision }
        return revision
    }

    /// Where a page reconnecting to a restored session goes: a checkout in progress is shown (its
    /// history from before the restart is not known).
    public var initialNavigation: String? { currentOutput.build.checkoutID == nil ? nil : "/checkout" }

    /// Everything to save, as of now.
    public func snapshot(revision: Int) -> SessionSnapshot {
        let cart = cart.latestState
        return SessionSnapshot(
            orderKey: orderKey,
            analyticsKey: analyticsKey,
            guitar: build.latestState.guitar,
            cart: cart.cart,
            discount: cart.discount,
            checkout: build.currentCheckout.map { CheckoutSnapshot(state: $0.latestState) },
            settledCheckoutID: cart.settledCheckoutID,
            guide: build.latestState.guide,
            revision: revision
        )
    }

    /// Composes the screens until `close()`: every change of the combined output is given to
    /// `render`, in order, unless it is held (`hold()`); `save` is told of a change the session
    /// must store that nobody posted: a checkout that arrived or ended outside any hold (held
    /// until a save covers it, `releaseHeldForSaving`) and progress the checkout made on its own
    /// (shown at once; the owner saves it without holding up the change). Both are called on the
    /// thread of whoever made the change, and must not wait.
    public func start(
        render: @escaping @Sendable (SessionChange) -> Void,
        save: @escaping @Sendable () -> Void
    ) {
        composition.state.withLock { $0.render = render }
        let cartSubscription = cart.sinkOutputs { [self] output in
            combine(.cart, save) { $0.cart = output }
        }
        subscriptions.withLock { $0.cart = cartSubscription }
        if let restored = build.currentCheckout { follow(restored, save) }
        let buildSubscription = build.sinkOutputs { [self] output in
            let checkout = build.currentCheckout.flatMap { $0.checkout.id == output.checkoutID ? $0 : nil }
            let step = combine(.build, save) { combined in
                combined.build = output
                if combined.checkout?.checkoutID != output.checkoutID {
                    combined.checkout = checkout?.currentOutput
                }
            }
            if let checkout, step.checkoutChanged {
                // The newest checkout is followed (until it closes: the builder closes the one a
                // newer checkout replaces, and every one when the session closes).
                follow(checkout, save)
            }
        }
        subscriptions.withLock { $0.build = buildSubscription }
    }

    /// What a step of the composition changed, for the loop that made it to act on.
    private struct Step {
        var checkoutChanged = false
    }

    /// Folds `update` into the combined output and, unless it is held, renders the change, under
    /// one lock; the kiosk hears of a guitar once it is shown.
    ///
    /// The sinks that call it are synchronous, so the outputs it copies (two `SessionOutput`s and
    /// a `SessionChange`, a few kilobytes) live on the caller's stack for the call only. (When the
    /// composition was three `for await` loops, these copies inlined into the loops became slots of
    /// their async frames, kept for the session's life: 22 KiB per session.)
    @discardableResult
    private func combine(
        _ source: SessionChange.Source, _ save: @Sendable () -> Void, _ update: (inout SessionOutput) -> Void
    ) -> Step {
        // While held with nothing waiting, what a save would store now: a change that stores
        // nothing new (a loading flag, "Ordering…") is shown at once. (With a held change waiting
        // it is held too, whatever it stores, so nothing is read then.) Read from the screens,
        // which are never behind the composition, so a change not folded yet only makes this one
        // look stored-worthy too, and held.
        let mayPass = composition.state.withLock { $0.holds > 0 && $0.latest == $0.shown }
        let content = mayPass ? snapshot(revision: 0) : nil
        let (step, shownGuitar, mustSave) = composition.state.withLock {
            composition -> (Step, Guitar?, Bool) in
            var next = composition.latest
            update(&next)
            guard next != composition.latest, !composition.closed else { return (Step(), nil, false) }
            let change = SessionChange(previous: composition.latest, current: next, source: source)
            taps?.record("session.output", .value, change.summary)
            composition.fold(next)
            composition.changes &+= 1
            let step = Step(checkoutChanged: change.previous.build.checkoutID != next.build.checkoutID)
            // A checkout that arrives or ends is shown once stored, like a posted change: held
            // until the save it asks for covers it.
            if composition.holds == 0, step.checkoutChanged {
                composition.holds += 1
                composition.heldContent = nil
                composition.heldForSaving += 1
                if composition.heldSource == nil { composition.heldSource = source }
                return (step, nil, true)
            }
            guard composition.holds == 0 else {
                let passes =
                    change.previous == composition.shown && content != nil && content == composition.heldContent
                guard passes else {
                    if composition.heldSource == nil { composition.heldSource = source }
                    return (step, nil, false)
                }
                return (step, composition.show(source: source), false)
            }
            let shown = composition.show(source: source)
            return (step, shown, change.isCheckoutProgress)
        }
        if let shownGuitar { onBuilderActed(shownGuitar) }
        if mustSave { save() }
        return step
    }

    /// The checkout's outputs while it is the builder's (`flatMapLatest`: a replaced checkout's
    /// late outputs are dropped). A confirmed order settles the cart.
    private func follow(_ model: CheckoutViewModel, _ save: @escaping @Sendable () -> Void) {
        let id = model.checkout.id
        // Settling is idempotent: a restored checkout confirmed before the restart settles again.
        let settled = SettledOnce()
        let subscription = model.sinkOutputs { [self] output in
            combine(.checkout, save) { combined in
                if combined.build.checkoutID == id { combined.checkout = output }
            }
            if output.confirmation != nil, settled.first() { cart.settle(model.checkout) }
        }
        let replaced = subscriptions.withLock { subscriptions in
            defer { subscriptions.checkout = subscription }
            return subscriptions.checkout
        }
        replaced?.cancel()
    }

    /// Places the order of `model` (the builder's current checkout) and settles the cart it was
    /// checked out from, both in the caller's turn, so that the save after it holds both: the
    /// session owns what a confirmed order does to it. (The confirmation's own output settles the
    /// cart too, for a checkout confirmed elsewhere or before a restart; settling twice is once.)
    ///
    /// - Throws: `CheckoutViewModel.OrderFailure` when the order is refused or cannot be placed.
    @discardableResult
    public func placeOrder(_ model: CheckoutViewModel) async throws -> Order {
        let order = try await model.placeOrder()
        cart.settle(model.checkout)
        return order
    }

    /// Holds back every change from here until the matching `release()`: none is rendered, the
    /// kiosk and analytics hear of none, and a page shows none (`shownOutput`). The session holds
    /// its shop while it changes and stores it, so that a change whose save fails is never seen.
    /// Holds nest.
    public func hold() {
        let content = snapshot(revision: 0)
        composition.state.withLock { composition in
            if composition.holds == 0 { composition.heldContent = content }
            composition.holds += 1
        }
    }

    /// Ends one `hold()`; at the last, renders what was held as one change and tells the kiosk and
    /// analytics.
    public func release() {
        release(holds: 1, heldForSaving: 0)
    }

    /// Where the output stands, for a save about to store the shop: a save taken after this covers
    /// every change counted in it, and the checkouts held for saving until then.
    public struct SaveMark: Equatable, Sendable {
        /// How many changes had been folded.
        let changes: UInt64
        /// How many holds a checkout arriving or ending took, waiting for a save.
        let heldForSaving: Int
    }

    /// Read before taking the snapshot to store.
    public var saveMark: SaveMark {
        composition.state.withLock { SaveMark(changes: $0.changes, heldForSaving: $0.heldForSaving) }
    }

    /// Whether anything changed since `mark` was read: a save that stored the snapshot taken after
    /// `mark` does not cover it, and the owner stores again before showing it.
    public func changed(since mark: SaveMark) -> Bool {
        composition.state.withLock { $0.changes != mark.changes }
    }

    /// Whether a change is held that nobody has seen, or a checkout waits for its save.
    public var holdsUnshownChange: Bool {
        composition.state.withLock { $0.latest != $0.shown || $0.heldForSaving > 0 }
    }

    /// A save covering `mark` succeeded: the checkouts held for it until then are let go (and
    /// shown, unless another hold remains).
    public func releaseHeldForSaving(through mark: SaveMark) {
        release(holds: 0, heldForSaving: mark.heldForSaving)
    }

    private func release(holds: Int, heldForSaving: Int) {
        let (shownGuitar, events) = composition.state.withLock {
            composition -> (Guitar?, [AnalyticsEvent]) in
            let freed = min(heldForSaving, composition.heldForSaving)
            composition.heldForSaving -= freed
            composition.holds = max(composition.holds - holds - freed, 0)
            guard composition.holds == 0, !composition.closed else { return (nil, []) }
            composition.heldContent = nil
            let source = composition.heldSource ?? .build
            composition.heldSource = nil
            let events = composition.heldEvents
            composition.heldEvents = []
            return (composition.show(source: source), events)
        }
        if let shownGuitar { onBuilderActed(shownGuitar) }
        for event in events { analytics.enqueue(event) }
    }

    /// Ends the screens, and with them the composition: what was held is dropped, never shown.
    public func close() {
        composition.state.withLock { composition in
            composition.closed = true
            composition.heldEvents = []
        }
        build.close()
        cart.close()
        let ended = subscriptions.withLock { subscriptions in
            defer { subscriptions = Subscriptions() }
            return [subscriptions.build, subscriptions.cart, subscriptions.checkout]
        }
        for subscription in ended { subscription?.cancel() }
    }
}

extension ShopSession {
    /// The sinks the composition holds while it runs.
    struct Subscriptions: Sendable {
        var build: BroadcastSubscription?
        var cart: BroadcastSubscription?
        var checkout: BroadcastSubscription?
    }

    /// The combined output and what of it is shown, under one lock: a change is folded into
    /// `latest` as it comes, and reaches `shown` (and the renderer) only while nothing holds it.
    final class Composition: Sendable {
        struct State {
            private(set) var latest: SessionOutput
            /// What the pages show while a hold keeps it behind `latest`; nil while they show
            /// `latest`, which is most of the time. Out of line, so that an idle session does not
            /// keep a second inline copy of the output beside the first.
            @OutOfLine private var behind: SessionOutput?
            /// The combined output as last rendered.
            var shown: SessionOutput { behind ?? latest }
            /// How many times `shown` changed.
            var shownRevision: UInt64 = 0
            /// How many changes were folded into `latest`.
            var changes: UInt64 = 0
            var holds = 0
            /// The holds of checkouts that arrived or ended outside any hold, until a save covers them.
            var heldForSaving = 0
            /// The screen that moved first while held: the change shown at the release is told as its.
            var heldSource: SessionChange.Source?
            /// Analytics events of actions held.
            var heldEvents: [AnalyticsEvent] = []
            /// What a save would have stored when the hold began (nil for a checkout's hold): a
            /// change that leaves it so is shown through the hold. Out of line, as it is there only
            /// while a hold lasts.
            @OutOfLine var heldContent: SessionSnapshot?
            var render: (@Sendable (SessionChange) -> Void)?
            var closed = false

            init(_ output: SessionOutput) {
                latest = output
            }

            /// Folds a change into `latest`; the pages go on showing what they showed.
            mutating func fold(_ next: SessionOutput) {
                if behind == nil { behind = latest }
                latest = next
            }

            /// Sets the cart's part of the output, shown or not.
            mutating func setCart(_ output: CartOutput) {
                latest.cart = output
                if var shown = behind {
                    shown.cart = output
                    behind = shown
                }
            }

            /// Renders what `latest` changed since `shown`; the guitar, if it changed (for the kiosk).
            mutating func show(source: SessionChange.Source) -> Guitar? {
                guard let shown = behind else { return nil }
                guard latest != shown, let render else {
                    behind = nil
                    return nil
                }
                let change = SessionChange(previous: shown, current: latest, source: source)
                behind = nil
                shownRevision &+= 1
                render(change)
                return change.previous.build.guitar != change.current.build.guitar ? change.current.build.guitar : nil
            }
        }

        let state: Mutex<State>

        init(_ output: SessionOutput) {
            state = Mutex(State(output))
        }

        /// Sets the cart's part of the output the composition starts from.
        func startCart(_ output: CartOutput) {
            state.withLock {
                $0.setCart(output)
            }
        }

        /// Keeps `event` until the release while a change is held; true when nothing holds it and
        /// the caller sends it on.
        func holdBack(_ event: AnalyticsEvent) -> Bool {
            state.withLock { state in
                guard state.holds > 0 else { return true }
                if !state.closed { state.heldEvents.append(event) }
                return false
            }
        }
    }

    /// True the first time it is asked, false after: a checkout's confirmation settles the cart once.
    final class SettledOnce: Sendable {
        private let settled = Atomic<Bool>(false)
        func first() -> Bool { !settled.exchange(true, ordering: .relaxed) }
    }
}
