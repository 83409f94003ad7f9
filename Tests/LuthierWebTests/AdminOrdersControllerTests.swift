import LuthierDomain
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

/// `/admin/orders` over HTTP: finding orders, one order's page, cancelling before the woods are
/// cut (live on the customer's order page and the kiosk), and handing a pickup over.
@Suite("AdminOrdersController over HTTP")
struct AdminOrdersControllerTests {
    static let bearer = AdminStockControllerTests.bearer

    static func configure(_ configuration: inout LuthierConfiguration) {
        AdminControllerTests.configure(&configuration)
        configuration.workshopPace = WorkshopPace(perStage: .seconds(10))
    }

    @Test("orders are listed newest first, by stage and by part of their number; a wrong query is 400")
    func findingOrders() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            let (_, number, _) = try await KioskControllerTests.placeOrder(app, shop: shop)
            let all = try await app.get("/admin/orders", headers: Self.bearer)
            #expect(all.status == 200)
            #expect(all.text.contains("href=\"/admin/orders/\(number)\""))
            let part = String(number.suffix(3)).lowercased()
            #expect(try await app.get("/admin/orders?number=\(part)", headers: Self.bearer).text.contains(number))
            #expect(try await app.get("/admin/orders?stage=woodSelection", headers: Self.bearer).text.contains(number))
            let shipped = try await app.get("/admin/orders?stage=shipped", headers: Self.bearer)
            #expect(!shipped.text.contains(number))
            #expect(shipped.text.contains("No order matches."))
            let badStage = try await app.get("/admin/orders?stage=lost", headers: Self.bearer)
            #expect(badStage.status == 400)
            #expect(badStage.text.contains("Query 'stage' cannot be 'lost'; allowed values: woodSelection"))
            let badNumber = try await app.get("/admin/orders?number=%3Cscript%3E", headers: Self.bearer)
            #expect(badNumber.status == 400)
            #expect(badNumber.text.contains("Query 'number'"))
            #expect(try await app.get("/admin/orders").status == 401)
        }
    }

    @Test("an order's page shows its guitars, total and history, and the cancel form while it can be cancelled")
    func orderPage() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            let (_, number, _) = try await KioskControllerTests.placeOrder(app, shop: shop)
            let page = try await app.get("/admin/orders/\(number.lowercased())", headers: Self.bearer)
            #expect(page.status == 200)
            #expect(page.text.contains("<h1>Order \(number)</h1>"))
            #expect(page.text.contains("id=\"cancel-form\""))
            #expect(!page.text.contains("id=\"collect-form\""))
            #expect(page.text.contains("<strong>Wood selection</strong>"))
            let order = try #require(try await shop.store.order(number: number))
            #expect(page.text.contains(order.quote.total.formatted()))
            #expect(try await app.get("/admin/orders/LU-222222", headers: Self.bearer).status == 404)
            #expect(try await app.get("/admin/orders/nonsense", headers: Self.bearer).status == 404)
        }
    }

    @Test("cancelling at wood selection returns the woods, and the customer's order page says so live")
    func cancellingIsLive() async throws {
        try await KioskControllerTests.runMovingShop(configure: Self.configure) { app, shop in
            let (_, number, key) = try await KioskControllerTests.placeOrder(app, shop: shop)
            let stock = try await shop.store.stockLevels()
            let orderStream = try await KioskControllerTests.openStream(app, "/orders/\(number)/events?key=\(key)")
            _ = try await orderStream.nextEvent()  // retry
            _ = try await orderStream.nextPatch()  // the opening: wood selection

            let noNote = try await app.post("/admin/orders/\(number)/cancel", form: "note=", headers: Self.bearer)
            #expect(noNote.status == 422)
            #expect(noNote.text.contains("Field 'note'"))
            let cancelled = try await app.post(
                "/admin/orders/\(number)/cancel", form: "note=Customer+asked", headers: Self.bearer)
            #expect(cancelled.status == 303, "\(cancelled)")
            #expect(cancelled.header("Location") == "/admin/orders/\(number)")

            let (_, patch) = try await orderStream.nextPatch()
            #expect(KioskControllerTests.status(patch.html("order-stages")) == "Cancelled")
            #expect(patch.html("order-stages")?.contains("cancelled this order before its woods were cut") == true)
            await orderStream.close()
            // Its woods are back: the stock is as before the order, with the reserved count gone.
            #expect(try await shop.store.stockLevels().map(\.inStock) == stock.map { $0.inStock + $0.reserved })
            #expect(try await shop.store.stockLevels().allSatisfy { $0.reserved == 0 })
            let page = try await app.get("/admin/orders/\(number)", headers: Self.bearer)
            #expect(page.text.contains("<strong>Cancelled</strong>"))
            #expect(page.text.contains(": Customer asked"))
            #expect(!page.text.contains("id=\"cancel-form\""))
            let customer = try await app.get("/orders/\(number)?key=\(key)")
            #expect(KioskControllerTests.status(customer.text) == "Cancelled")

            let again = try await app.post("/admin/orders/\(number)/cancel", form: "note=again", headers: Self.bearer)
            #expect(again.status == 409)
            #expect(again.text.contains("\(number) is at Cancelled; only an order still at Wood selection"))
            let unknown = try await app.post("/admin/orders/LU-222222/cancel", form: "note=x", headers: Self.bearer)
            #expect(unknown.status == 404)
        }
    }

    @Test("past wood selection an order cannot be cancelled; a pickup ready for pickup is marked collected")
    func collecting() async throws {
        try await KioskControllerTests.runMovingShop(configure: Self.configure) { app, shop in
            let (_, number, _) = try await KioskControllerTests.placeOrder(app, shop: shop)
            let early = try await app.post("/admin/orders/\(number)/collect", form: "", headers: Self.bearer)
            #expect(early.status == 409)
            #expect(early.text.contains("only a pickup order that is Ready for pickup"))
            for _ in 0..<4 { try await KioskControllerTests.advanceShowroom(app, by: .seconds(10)) }
            // The floor tells the stage once it is stored.
            let ready = await firstValue(of: app.services.showroom.floor.outputs()) { floor in
                (floor.recentOrders + floor.inProgress).contains { $0.number == number && $0.status == .readyForPickup }
            }
            #expect(ready)
            let late = try await app.post("/admin/orders/\(number)/cancel", form: "note=x", headers: Self.bearer)
            #expect(late.status == 409)
            let withField = try await app.post(
                "/admin/orders/\(number)/collect", form: "by=me", headers: Self.bearer)
            #expect(withField.status == 422)
            let collected = try await app.post("/admin/orders/\(number)/collect", form: "", headers: Self.bearer)
            #expect(collected.status == 303)
            #expect(try await shop.store.order(number: number)?.status == .collected)
            let history = try await shop.store.stageHistory(ofOrder: number).map(\.status)
            #expect(history == [.woodSelection, .bodyShaping, .finishing, .setup, .readyForPickup, .collected])
        }
    }
}
