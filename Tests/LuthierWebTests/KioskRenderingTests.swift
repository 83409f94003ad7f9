import Foundation
import LuthierDomain
import LuthierFeatures
import ServerMachinery
import TestSupport
import Testing

@testable import LuthierWeb

/// The kiosk's fragments are rendered from the feed only while a kiosk follows them, and on
/// the first read after: an order with no kiosk open renders nothing.
@Suite("KioskRendering")
struct KioskRenderingTests {
    /// A feed that the test moves by giving the floor's outputs.
    struct Rig {
        let feed: KioskFeed
        let floor: AsyncStream<WorkshopFloorOutput>.Continuation
        let rendering: KioskRendering
        /// A store without the rendering's read hook, so that the test reads it as it is.
        let store: FragmentStore
        let running: Task<Void, Never>

        init() async throws {
            let renderer = try await PageRenderer(
                directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
            let environment = LuthierEnvironment.webTest(clock: WatchedTestClock())
            let (outputs, floor) = AsyncStream<WorkshopFloorOutput>.makeStream()
            let workshopFloor = WorkshopFloor(environment: environment, pace: .days)
            let feed = KioskFeed(
                environment: environment, floor: workshopFloor.currentOutput, floorOutputs: { outputs },
                builds: KioskFeed.builderInput().builds, counters: { KioskCounters() })
            self.feed = feed
            self.floor = floor
            rendering = KioskRendering(feed: feed, renderer: renderer)
            store = FragmentStore(initial: rendering.initialFragments())
            running = Task { await feed.run() }
        }

        /// Places an order on the floor and returns once the feed's output shows it.
        func order(_ number: String) async {
            let request = OrderRequest(
                checkoutID: "checkout-\(number)",
                guitar: Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony),
                shipping: ShippingOption(method: .pickup, price: ShippingMethod.pickup.price), rate: .dollar(),
                sessionKey: "a session")
            let order = Order(
                number: number, accessKey: "key", checkoutID: request.checkoutID, lines: request.lines,
                shipping: .pickup, currency: .usd, rate: 1, quote: request.quote, placedAt: TestShop.now,
                sessionKey: request.sessionKey)
            let before = feed.currentOutput.guitarsOrderedToday
            floor.yield(
                WorkshopFloorOutput(
                    recentOrders: [order], inProgress: [order], guitarsOrderedToday: before + 1, updatedAt: TestShop.now
                ))
            _ = await firstValue(of: feed.outputs()) { $0.guitarsOrderedToday == before + 1 }
        }

        func orderRows() -> [String] {
            KioskControllerTests.orderRows(
                store.changes(since: 0).fragments.first { $0.target == "kiosk-orders" }?.html
            )
            .map(\.description)
        }
    }

    @Test("with no kiosk following, a change of the feed renders nothing until the store is read")
    func nobodyFollowing() async throws {
        let rig = try await Rig()
        defer { rig.running.cancel() }
        let version = rig.store.version
        await rig.order("LU-NOBODY")

        rig.rendering.feedChanged(on: rig.store)
        #expect(rig.store.version == version, "rendered for nobody")
        #expect(rig.rendering.isBehind)
        #expect(rig.orderRows().isEmpty)

        // The first read renders what changed, once.
        rig.rendering.catchUp(rig.store)
        #expect(rig.store.version == version + 1)
        #expect(!rig.rendering.isBehind)
        #expect(rig.orderRows() == [KioskControllerTests.skyDescription])
        rig.rendering.catchUp(rig.store)
        #expect(rig.store.version == version + 1, "a read with nothing behind renders nothing")
    }

    @Test("with a kiosk following, each change of the feed is rendered at once")
    func aKioskFollowing() async throws {
        let rig = try await Rig()
        defer { rig.running.cancel() }
        let follower = rig.store.addWaker(StreamWaker(wake: {}, finish: {}))
        defer { follower.map(rig.store.removeWaker) }
        let version = rig.store.version
        await rig.order("LU-WATCHED")

        rig.rendering.feedChanged(on: rig.store)
        #expect(rig.store.version == version + 1)
        #expect(!rig.rendering.isBehind)
        #expect(rig.orderRows() == [KioskControllerTests.skyDescription])
    }
}
