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
    private let combined: Mutex<SessionOutput>
    /// The composition's sinks, cancelled when the session closes.
    private let subscriptions = Mutex(Subscriptions())
    /// The session's own recorder (its inspector's lanes), if it has one.
    public let taps: TapRecorder?
    /// Told of every change of this session's guitar (the kiosk shows what is being built).
    private let onBuilderActed: @Sendable (Guitar) -> Void

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
        cart = CartViewModel(
            cart: snapshot.cart, discount: snapshot.discount, discounts: discounts,
            settledCheckoutID: snapshot.settledCheckoutID, now: environment.now,
            taps: environment.taps,
            // Each applied action becomes an analytics event, under the analytics key only.
            applied: { [analyticsKey = snapshot.analyticsKey] applied in
                analytics.enqueue(
                    AnalyticsEvent(
                        action: applied.action.name, configuration: applied.action.configuration, at: applied.at,
                        sessionKey: analyticsKey))
            })
        self.onBuilderActed = onBuilderActed
        combined = Mutex(
            SessionOutput(
                build: build.currentOutput, cart: cart.currentOutput, checkout: build.currentCheckout?.currentOutput))
    }

    /// The combined output as last rendered.
    public var currentOutput: SessionOutput { combined.withLock { $0 } }

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
    /// `render`, in order; `checkoutProgressed` is told of a change the checkout made on its own
    /// (the owner saves it, without holding up the change). Both are called on the thread of
    /// whoever made the change, and must not wait.
    public func start(
        render: @escaping @Sendable (SessionChange) -> Void,
        checkoutProgressed: @escaping @Sendable () -> Void
    ) {
        let cartSubscription = cart.sinkOutputs { [self] output in
            combine(.cart, render) { $0.cart = output }
        }
        subscriptions.withLock { $0.cart = cartSubscription }
        if let restored = build.currentCheckout { follow(restored, render, checkoutProgressed) }
        let buildSubscription = build.sinkOutputs { [self] output in
            let checkout = build.currentCheckout.flatMap { $0.checkout.id == output.checkoutID ? $0 : nil }
            let step = combine(.build, render) { combined in
                combined.build = output
                if combined.checkout?.checkoutID != output.checkoutID {
                    combined.checkout = checkout?.currentOutput
                }
            }
            if step.guitarChanged { onBuilderActed(output.guitar) }
            if let checkout, step.checkoutChanged {
                // The newest checkout is followed (until it closes: the builder closes the one a
                // newer checkout replaces, and every one when the session closes).
                follow(checkout, render, checkoutProgressed)
            }
        }
        subscriptions.withLock { $0.build = buildSubscription }
    }

    /// What a step of the composition changed, for the loop that made it to act on.
    private struct Step {
        var guitarChanged = false
        var checkoutChanged = false
        var checkoutProgressed = false
    }

    /// Folds `update` into the combined output and renders the change, under one lock.
    ///
    /// The sinks that call it are synchronous, so the outputs it copies (two `SessionOutput`s and
    /// a `SessionChange`, a few kilobytes) live on the caller's stack for the call only. (When the
    /// composition was three `for await` loops, these copies inlined into the loops became slots of
    /// their async frames, kept for the session's life: 22 KiB per session.)
    @discardableResult
    private func combine(
        _ source: SessionChange.Source, _ render: @Sendable (SessionChange) -> Void,
        _ update: (inout SessionOutput) -> Void
    ) -> Step {
        combined.withLock { combined in
            var next = combined
            update(&next)
            guard next != combined else { return Step() }
            let change = SessionChange(previous: combined, current: next, source: source)
            taps?.record("session.output", .value, change.summary)
            combined = next
            render(change)
            return Step(
                guitarChanged: change.previous.build.guitar != next.build.guitar,
                checkoutChanged: change.previous.build.checkoutID != next.build.checkoutID,
                checkoutProgressed: change.isCheckoutProgress)
        }
    }

    /// The checkout's outputs while it is the builder's (`flatMapLatest`: a replaced checkout's
    /// late outputs are dropped). A confirmed order settles the cart.
    private func follow(
        _ model: CheckoutViewModel, _ render: @escaping @Sendable (SessionChange) -> Void,
        _ checkoutProgressed: @escaping @Sendable () -> Void
    ) {
        let id = model.checkout.id
        // Settling is idempotent: a restored checkout confirmed before the restart settles again.
        let settled = SettledOnce()
        let subscription = model.sinkOutputs { [self] output in
            let step = combine(.checkout, render) { combined in
                if combined.build.checkoutID == id { combined.checkout = output }
            }
            if output.confirmation != nil, settled.first() { cart.settle(model.checkout) }
            if step.checkoutProgressed { checkoutProgressed() }
        }
        let replaced = subscriptions.withLock { subscriptions in
            defer { subscriptions.checkout = subscription }
            return subscriptions.checkout
        }
        replaced?.cancel()
    }

    /// Ends the screens, and with them the composition.
    public func close() {
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

    /// True the first time it is asked, false after: a checkout's confirmation settles the cart once.
    final class SettledOnce: Sendable {
        private let settled = Atomic<Bool>(false)
        func first() -> Bool { !settled.exchange(true, ordering: .relaxed) }
    }
}
