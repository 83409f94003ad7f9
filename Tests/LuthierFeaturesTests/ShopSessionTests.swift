import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierFeatures

/// The session's composition with no server: the test feeds the screens' inputs and receives
/// each change of the combined output as it is rendered, in order (waiting for it, bounded;
/// nothing polls).
/// A count several tasks add to.
final class Tally: Sendable {
    private let value = Mutex(0)
    var count: Int { value.withLock { $0 } }
    func add(_ amount: Int = 1) { value.withLock { $0 += amount } }
}

@Suite struct ShopSessionTests {
    static let guitar = Guitar(shape: .longV, color: .sky)

    final class Harness: Sendable {
        let workshop = FakeWorkshop()
        let shop: ShopSession
        let changes: AsyncStream<SessionChange>
        private let changeInput: AsyncStream<SessionChange>.Continuation
        let builds: AsyncStream<Guitar>
        let recorded: AsyncStream<AnalyticsEvent>
        /// Saves the composition asked its owner for.
        let saves = Tally()
        /// Whether the owner stores at once when asked (as a save that succeeds); otherwise a
        /// checkout that arrived stays held until the test lets it go.
        let storesWhenAsked: Bool
        let analyticsFailures = Tally()
        let queue = AnalyticsQueue()
        private let analytics: AnalyticsClient
        private let running = Mutex<Task<Void, Never>?>(nil)

        init(
            snapshot: SessionSnapshot = SessionSnapshot(orderKey: "orders", analyticsKey: "analytics"),
            failAnalytics: Bool = false,
            storesWhenAsked: Bool = true
        ) {
            self.storesWhenAsked = storesWhenAsked
            (changes, changeInput) = AsyncStream<SessionChange>.makeStream()
            let (builds, buildInput) = AsyncStream<Guitar>.makeStream()
            self.builds = builds
            let (recorded, recordInput) = AsyncStream<AnalyticsEvent>.makeStream()
            self.recorded = recorded
            let analytics = AnalyticsClient(
                record: { events in
                    for event in events { recordInput.yield(event) }
                    if failAnalytics { throw CancellationError() }
                },
                report: { _ in throw CancellationError() })
            self.analytics = analytics
            shop = ShopSession(
                snapshot: snapshot,
                environment: .test(clock: ManualClock(), workshop: workshop.client, analytics: analytics),
                discounts: [], analytics: queue, onBuilderActed: { buildInput.yield($0) })
        }

        /// Starts the session's composition, and (unless told not to) runs the shop's analytics
        /// queue as `SessionService` does. A save asked for is a save that succeeds at once, as
        /// the web's `Session` makes, unless the harness was made not to store.
        func start(recordingAnalytics: Bool = true) {
            let changeInput = changeInput
            if recordingAnalytics {
                let task = Task { [queue, analytics, analyticsFailures] in
                    await queue.run(recording: analytics.record) { _, events in
                        analyticsFailures.add(events)
                    }
                }
                running.withLock { $0 = task }
            }
            shop.start(
                render: { changeInput.yield($0) },
                save: { [self] in
                    saves.add()
                    if storesWhenAsked { shop.releaseHeldForSaving(through: shop.saveMark) }
                })
        }

        /// The next change rendered (nil if none comes within the bound).
        func nextChange() async -> SessionChange? {
            await firstValues(1, of: changes).first
        }

        /// Changes up to and including the first that satisfies `condition` (a screen's effects
        /// may move it more than once on the way, and a reader gets the latest).
        func change(where condition: (SessionChange) -> Bool) async -> SessionChange? {
            for _ in 0..<5 {
                guard let change = await nextChange() else { return nil }
                if condition(change) { return change }
            }
            return nil
        }

        func finish() async {
            shop.close()
            changeInput.finish()
            queue.finish()
            await running.withLock { $0 }?.value
        }
    }

    @Test func aBuilderChangeIsOneChangeOfTheCombinedOutputAndTellsTheKiosk() async throws {
        let harness = Harness()
        harness.start()
        await harness.shop.build.send(.change(GuitarChange(shape: .longV)))
        let change = try #require(await harness.nextChange())
        #expect(change.source == .build)
        #expect(change.current.build.guitar.shape == .longV)
        #expect(change.previous.build.guitar == .standard)
        #expect(change.current.cart == change.previous.cart)
        #expect(change.navigation == nil)
        #expect(await firstValues(1, of: harness.builds) == [Guitar(shape: .longV)])
        #expect(harness.shop.currentOutput == change.current)
        await harness.finish()
    }

    @Test func aCartChangeIsCombinedWithTheLatestBuilderOutput() async throws {
        let harness = Harness()
        harness.start()
        try await harness.shop.cart.send(.add(Self.guitar))
        let change = try #require(await harness.nextChange())
        #expect(change.source == .cart)
        #expect(change.current.cart.guitarCount == 1)
        #expect(change.current.build == harness.shop.build.currentOutput)
        // The applied action is also an analytics event, under the analytics key only.
        let events = await firstValues(1, of: harness.recorded)
        #expect(events.map(\.action) == ["add"])
        #expect(events.map(\.sessionKey) == ["analytics"])
        await harness.finish()
    }

    @Test func aFailingAnalyticsStoreCostsTheEventNotTheCart() async throws {
        let harness = Harness(failAnalytics: true)
        harness.start()
        try await harness.shop.cart.send(.add(Self.guitar))
        #expect(await harness.nextChange()?.current.cart.guitarCount == 1)
        #expect(await firstValues(1, of: harness.recorded).count == 1)
        await harness.finish()
        #expect(harness.analyticsFailures.count == 1)
    }

    @Test func startingACheckoutSendsEveryPageThereAndEndingItSendsThemBack() async throws {
        let harness = Harness()
        harness.start()
        let model = try await harness.shop.build.checkout()
        let started = try #require(await harness.change { $0.navigation != nil })
        #expect(started.navigation == "/checkout")
        #expect(started.current.checkout?.checkoutID == model.checkout.id)

        // The checkout's own changes are combined and saved by the owner.
        model.selectShipping(.express)
        let progress = try #require(await harness.nextChange())
        #expect(progress.source == .checkout)
        #expect(progress.isCheckoutProgress)
        #expect(progress.navigation == nil)

        await harness.shop.build.send(.checkoutEnded)
        let ended = try #require(await harness.change { $0.navigation != nil })
        #expect(ended.navigation == "/")
        #expect(ended.current.checkout == nil)
        await harness.finish()
        // The checkout's arrival, its progress and its end: each stored by the owner.
        #expect(harness.saves.count == 3)
    }

    /// What every session holds beside its output is small: the output shown while a hold keeps
    /// it behind, and the content a hold began with, are boxed (an inline second output was 656
    /// bytes and an empty snapshot slot 469, in each of 10,000 sessions).
    @Test func aSessionsCompositionHoldsOneOutputInline() {
        let state = MemoryLayout<ShopSession.Composition.State>.size
        #expect(state < MemoryLayout<SessionOutput>.size + 128, "\(state) bytes")
    }

    /// A started shop with one guitar in its cart, checked out from the cart.
    static func checkoutOfAGuitarInTheCart() async throws -> (Harness, CheckoutViewModel) {
        let harness = Harness()
        harness.start()
        try await harness.shop.cart.send(.add(Self.guitar))
        _ = await harness.change { $0.current.cart.guitarCount == 1 }
        return (harness, try await harness.shop.build.checkout(cart: harness.shop.cart.latestState.cart, discount: nil))
    }

    @Test func anOrderConfirmedFromTheCartSettlesTheCart() async throws {
        let (harness, model) = try await Self.checkoutOfAGuitarInTheCart()
        _ = try await model.placeOrder()
        let settled = try #require(await harness.change { $0.source == .cart })
        #expect(settled.current.cart.guitarCount == 0)
        #expect(harness.shop.cart.latestState.settledCheckoutID == model.checkout.id)
        await harness.finish()
    }

    @Test func anOrderPlacedThroughTheSessionHasSettledTheCartWhenItReturns() async throws {
        let (harness, model) = try await Self.checkoutOfAGuitarInTheCart()
        let order = try await harness.shop.placeOrder(model)
        // Settled in the call itself, not later by the confirmation's output: a save made right
        // after it (the order route's, in the same turn) holds the settled cart.
        #expect(harness.shop.cart.latestState.cart.guitarCount == 0)
        #expect(harness.shop.cart.latestState.settledCheckoutID == model.checkout.id)
        #expect(harness.shop.snapshot(revision: 1).settledCheckoutID == model.checkout.id)
        #expect(order == model.latestState.order)
        await harness.finish()
    }

    @Test func aRestoredCheckoutIsFollowedAndPagesAreSentToIt() async throws {
        let first = Harness()
        first.start()
        _ = try await first.shop.build.checkout()
        _ = await first.change { $0.navigation != nil }
        let snapshot = first.shop.snapshot(revision: 3)
        await first.finish()
        #expect(snapshot.checkout != nil)
        #expect(snapshot.revision == 3)

        let restored = Harness(snapshot: snapshot)
        #expect(restored.shop.initialNavigation == "/checkout")
        #expect(restored.shop.currentOutput.checkout?.checkoutID == snapshot.checkout?.checkout.id)
        restored.start()
        restored.shop.build.currentCheckout?.selectShipping(.express)
        let progress = try #require(await restored.nextChange())
        #expect(progress.source == .checkout)
        await restored.finish()
    }

    @Test func aHeldChangeIsShownOnlyAtItsReleaseAsOneChangeWithTheKioskAndAnalyticsTold() async throws {
        let harness = Harness()
        harness.start(recordingAnalytics: false)
        let before = harness.shop.shownOutput
        harness.shop.hold()
        await harness.shop.build.send(.change(GuitarChange(shape: .longV)))
        try await harness.shop.cart.send(.add(Self.guitar))
        #expect(harness.shop.shownOutput == before, "nothing of a held change is shown")
        #expect(harness.shop.currentOutput.cart.guitarCount == 1)
        #expect(harness.shop.holdsUnshownChange)
        #expect(harness.queue.pendingCount == 0, "analytics hears of no held action")

        harness.shop.release()
        let change = try #require(await harness.nextChange())
        #expect(change.previous == before)
        #expect(change.current.build.guitar.shape == .longV)
        #expect(change.current.cart.guitarCount == 1)
        #expect(harness.shop.shownOutput == change.current)
        #expect(!harness.shop.holdsUnshownChange)
        #expect(await firstValues(1, of: harness.builds) == [Guitar(shape: .longV)])
        #expect(harness.queue.pendingCount == 1)
        await harness.finish()
    }

    @Test func holdsNestAndAChangeIsShownAtTheLastRelease() async throws {
        let harness = Harness()
        harness.start()
        let before = harness.shop.shownOutput
        harness.shop.hold()
        harness.shop.hold()
        await harness.shop.build.send(.change(GuitarChange(color: .sky)))
        harness.shop.release()
        #expect(harness.shop.shownOutput == before)
        harness.shop.release()
        #expect(await harness.nextChange()?.current.build.guitar.color == .sky)
        await harness.finish()
    }

    @Test func aShopClosedWhileHoldingAChangeNeverShowsItOrCountsIt() async throws {
        let harness = Harness()
        harness.start(recordingAnalytics: false)
        harness.shop.hold()
        try await harness.shop.cart.send(.add(Self.guitar))
        harness.shop.close()
        harness.shop.release()
        #expect(harness.queue.pendingCount == 0)
        await harness.finish()
        // The stream of rendered changes has ended with none in it.
        #expect(await firstValues(1, of: harness.changes).isEmpty)
    }

    @Test func aCheckoutArrivingOutsideAHoldIsShownOnlyOnceASaveCoversIt() async throws {
        let harness = Harness(storesWhenAsked: false)
        harness.start()
        let model = try await harness.shop.build.checkout()
        #expect(harness.saves.count == 1, "the owner is asked to store the checkout")
        #expect(harness.shop.currentOutput.checkout?.checkoutID == model.checkout.id)
        #expect(harness.shop.shownOutput.checkout == nil, "no tab goes to a checkout not stored")
        #expect(harness.shop.holdsUnshownChange)

        // A save whose snapshot was taken after the checkout arrived lets it go.
        let mark = harness.shop.saveMark
        harness.shop.releaseHeldForSaving(through: mark)
        let started = try #require(await harness.change { $0.navigation != nil })
        #expect(started.navigation == "/checkout")
        #expect(harness.shop.shownOutput.checkout?.checkoutID == model.checkout.id)
        #expect(!harness.shop.changed(since: mark))
        await harness.finish()
    }

    @Test func aHeldShopStillShowsAChangeThatStoresNothingUntilSomethingStoredWaits() async throws {
        let harness = Harness()
        harness.start()
        harness.shop.hold()
        // The woods out of stock are not stored: the pickers' marks show through the hold.
        harness.shop.build.stockChanged(soldOut: [.body(.koa)])
        let marked = try #require(await harness.nextChange())
        #expect(marked.current.build.soldOut == [.body(.koa)])
        #expect(harness.shop.shownOutput == marked.current)

        // A guitar change is held, and so is a mark that comes after it: shown in order, at the release.
        await harness.shop.build.send(.change(GuitarChange(color: .earth)))
        harness.shop.build.stockChanged(soldOut: [])
        #expect(harness.shop.shownOutput == marked.current)
        harness.shop.release()
        let released = try #require(await harness.nextChange())
        #expect(released.current.build.guitar.color == .earth)
        #expect(released.current.build.soldOut.isEmpty)
        await harness.finish()
    }
}
