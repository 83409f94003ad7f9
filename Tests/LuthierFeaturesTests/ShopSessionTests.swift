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
        let progressed = Tally()
        let analyticsFailures = Tally()
        let queue = AnalyticsQueue()
        private let analytics: AnalyticsClient
        private let running = Mutex<Task<Void, Never>?>(nil)

        init(
            snapshot: SessionSnapshot = SessionSnapshot(orderKey: "orders", analyticsKey: "analytics"),
            failAnalytics: Bool = false
        ) {
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

        /// Starts the session's composition, and runs the shop's analytics queue as `SessionService`
        /// does.
        func start() {
            let changeInput = changeInput
            let task = Task { [queue, analytics, analyticsFailures] in
                await queue.run(recording: analytics.record) { _, events in
                    analyticsFailures.add(events)
                }
            }
            running.withLock { $0 = task }
            shop.start(render: { changeInput.yield($0) }, checkoutProgressed: { [progressed] in progressed.add() })
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
        #expect(harness.progressed.count == 1)
    }

    @Test func anOrderConfirmedFromTheCartSettlesTheCart() async throws {
        let harness = Harness()
        harness.start()
        try await harness.shop.cart.send(.add(Self.guitar))
        _ = await harness.change { $0.current.cart.guitarCount == 1 }
        let model = try await harness.shop.build.checkout(cart: harness.shop.cart.latestState.cart, discount: nil)
        _ = try await model.placeOrder()
        let settled = try #require(await harness.change { $0.source == .cart })
        #expect(settled.current.cart.guitarCount == 0)
        #expect(harness.shop.cart.latestState.settledCheckoutID == model.checkout.id)
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
}
