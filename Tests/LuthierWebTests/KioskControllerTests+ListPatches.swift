import Foundation
import LuthierDomain
import LuthierFeatures
import ServerMachinery
import TestSupport
import Testing

@testable import LuthierWeb

/// The kiosk's orders and board are keyed lists: a new order sends its row and its column, not
/// every row and column, and a kiosk following the stream shows what a kiosk loaded now shows.
extension KioskControllerTests {
    @Test("a second order reaches a kiosk that then shows what a kiosk loaded now shows")
    func aSecondOrderShowsAsOnAFreshKiosk() async throws {
        try await TestShop.run { app, shop in
            let (kiosk, _, _) = try await Self.openKiosk(app)
            _ = try await Self.placeOrder(app, shop: shop)
            _ = try await kiosk.nextSentPatch(touching: KioskFragments.orders)
            _ = try await Self.placeOrder(app, shop: shop, guitar: "shape=chunky&color=earth")
            _ = try await kiosk.nextSentPatch(touching: KioskFragments.orders)

            let page = try await app.get("/kiosk").text
            #expect(
                kiosk.shown.html(KioskFragments.orders)
                    == FollowedPage.content(ofElement: KioskFragments.orders, in: page))
            #expect(
                kiosk.shown.html(KioskFragments.board)
                    == FollowedPage.content(ofElement: KioskFragments.board, in: page))
            #expect(Self.orderRows(kiosk.shown.html(KioskFragments.orders)).count == 2)
            await kiosk.close()
        }
    }

    /// The kiosk's output with `orders` placed (newest first) and in the workshop.
    static func kioskOutput(_ orders: [Order]) -> KioskOutput {
        KioskOutput(
            state: KioskState(
                floor: WorkshopFloorOutput(
                    recentOrders: orders, inProgress: OrderList(orders), guitarsOrderedToday: orders.count,
                    updatedAt: TestShop.now),
                now: TestShop.now.addingTimeInterval(30)))
    }

    static func order(_ number: String, _ guitar: Guitar, placedSecondsAgo: TimeInterval) -> Order {
        let request = OrderRequest(
            checkoutID: "checkout-\(number)", guitar: guitar,
            shipping: ShippingOption(method: .pickup, price: ShippingMethod.pickup.price), rate: .dollar(),
            sessionKey: "a session")
        return Order(
            number: number, accessKey: "key", checkoutID: request.checkoutID, lines: request.lines, shipping: .pickup,
            currency: .usd, rate: 1, quote: request.quote, placedAt: TestShop.now.addingTimeInterval(-placedSecondsAgo),
            sessionKey: request.sessionKey)
    }

    @Test("a new order is one row first in the orders and one column of the board, never its number")
    func aNewOrderIsOneRowAndOneColumn() async throws {
        let renderer = try await FragmentTableTests.renderer()
        let earlier = [
            Self.order("LU-AAAAA2", Guitar(shape: .sharpV, color: .sky), placedSecondsAgo: 20),
            Self.order("LU-AAAAA3", Guitar(shape: .casual), placedSecondsAgo: 10),
        ].reversed()
        let newest = Self.order("LU-AAAAA4", Guitar(shape: .chunky, color: .earth), placedSecondsAgo: 5)
        let patch = KioskFragments.table.changed(
            from: Self.kioskOutput(Array(earlier)), to: Self.kioskOutput([newest] + earlier), renderer: renderer)

        let orders = try #require(patch.first { $0.target == KioskFragments.orders }?.items)
        guard case .put(let id, let html, let after) = try #require(orders.first), orders.count == 1 else {
            Issue.record("expected one row put, got \(orders)")
            return
        }
        #expect(id.hasPrefix("kiosk-order-") && after == nil)
        #expect(html.contains("Earth Chunky") && !html.contains("LU-AAAAA4"))
        let board = try #require(patch.first { $0.target == KioskFragments.board }?.items)
        #expect(board.count == 1)
        if case .put(let column, _, _) = board.first { #expect(column == "board-woodSelection") }
    }
}
