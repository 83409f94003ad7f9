import LuthierDomain
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

/// `/admin/stock` over HTTP: the levels, an audited adjustment, its refusals, and a restock
/// reaching an open checkout's stream live.
@Suite("AdminStockController over HTTP")
struct AdminStockControllerTests {
    static let bearer = [(name: "Authorization", value: "Bearer \(AdminControllerTests.token)")]

    static func adjust(_ app: TestApp, _ form: String) async throws -> TestHTTPResponse {
        try await app.post("/admin/stock", form: form, headers: bearer)
    }

    @Test("the stock page lists every wood with in stock, reserved and used, and needs the admin")
    func stockPage() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            #expect(try await app.get("/admin/stock").status == 401)
            #expect(try await app.post("/admin/stock", form: "wood=body/koa&change=1&note=x").status == 401)
            let page = try await app.get("/admin/stock", headers: Self.bearer)
            #expect(page.status == 200)
            for wood in StockedWood.allCases {
                #expect(page.text.contains("id=\"\(AdminStockController.anchor(wood))\""), "\(wood)")
                #expect(page.text.contains("value=\"\(wood.id)\""), "\(wood)")
            }
            #expect(page.text.contains("No adjustment has been booked yet."))
            #expect(try await shop.store.stockAdjustments(limit: 1).isEmpty)
        }
    }

    @Test("an adjustment is booked with its note, shown, logged, and answered 303 back to the wood's row")
    func anAdjustmentIsBookedAndLogged() async throws {
        let log = LogCapture()
        try await TestShop.run(configure: AdminControllerTests.configure, log: log) { app, shop in
            let booked = try await Self.adjust(app, "wood=body%2FblackLimba&change=%2B4&note=Delivery+from+Tonewood")
            #expect(booked.status == 303, "\(booked)")
            #expect(booked.header("Location") == "/admin/stock#stock-body-blackLimba")
            #expect(try await shop.store.stock(of: .body(.blackLimba)) == 7)
            let corrected = try await Self.adjust(app, "wood=fretboard/ebony&change=-2&note=Two+cracked")
            #expect(corrected.status == 303)
            #expect(try await shop.store.stock(of: .fretboard(.ebony)) == 6)
            let page = try await app.get("/admin/stock", headers: Self.bearer)
            #expect(page.text.contains("<td>Delivery from Tonewood</td>"))
            #expect(page.text.contains("−2"))
            let lines = log.all.filter { $0.contains("Admin adjusted stock") }
            #expect(lines.count == 2)
            #expect(lines.first?.contains("wood=body/blackLimba") == true)
            #expect(lines.first?.contains("change=4") == true)
            #expect(!log.all.joined().contains(AdminControllerTests.token))
        }
    }

    @Test(
        "a wrong adjustment is refused with 422 naming the field, and changes nothing",
        arguments: [
            ("wood=body/pine&change=1&note=x", "Field 'wood'"),
            ("wood=body/koa&change=0&note=x", "change: 0"),
            ("wood=body/koa&change=two&note=x", "Field 'change'"),
            ("wood=body/koa&change=1001&note=x", "change: 1001"),
            ("wood=body/koa&change=-7&note=x", "change: -7 would leave -1 Koa body blanks; there are 6"),
            ("wood=body/koa&change=1&note=", "Field 'note'"),
            ("wood=body/koa&change=1&note=%0Aforged", "Field 'note'"),
            ("wood=body/koa&change=1&note=x&price=1", "Unknown field 'price'"),
            ("wood=body/koa&change=1&change=2&note=x", "Field 'change' was sent more than once"),
        ])
    func refusals(form: String, sentence: String) async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            let response = try await Self.adjust(app, form)
            #expect(response.status == 422, "\(response)")
            #expect(response.text.contains(sentence), "\(response.text)")
            #expect(try await shop.store.stock(of: .body(.koa)) == 6)
            #expect(try await shop.store.stockAdjustments(limit: 5).isEmpty)
        }
    }

    @Test("a post from another site is refused before it is read")
    func crossSite() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            let response = try await app.post(
                "/admin/stock", form: "wood=body/koa&change=1&note=x",
                headers: Self.bearer + [("Origin", "http://evil.example")])
            #expect(response.status == 403)
            #expect(try await shop.store.stock(of: .body(.koa)) == 6)
        }
    }

    @Test("restocking a wood that ran out makes an open checkout orderable again, live on its stream")
    func aRestockReachesAnOpenCheckoutLive() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            try await shop.store.setStock(of: .fretboard(.blackLimba), to: 0)
            let cookie = try await CheckoutControllerTests.checkedOut(app, guitar: "fretboard=blackLimba")
            let before = try await CheckoutControllerTests.checkoutPage(app, cookie: cookie)
            #expect(before.orderButton?.label == "Model unavailable")
            let stream = try await app.openEventStream(cookie: cookie)
            _ = try await stream.nextEvent()  // retry
            _ = try await stream.nextPatch()  // the opening

            let booked = try await Self.adjust(app, "wood=fretboard/blackLimba&change=2&note=Found+two")
            #expect(booked.status == 303)
            let (_, patch) = try await stream.nextPatch()
            #expect(patch.html("checkout-details")?.contains("Available") == true, "\(patch.targets)")
            #expect(patch.html("checkout-order")?.contains("Order now") == true, "\(patch.targets)")
            await stream.close()
            let after = try await CheckoutControllerTests.checkoutPage(app, cookie: cookie)
            #expect(after.orderButton == CheckoutPageSnapshot.Button(label: "Order now", isDisabled: false))
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 204)
            #expect(try await shop.store.stock(of: .fretboard(.blackLimba)) == 1)
        }
    }

    @Test("a wood taken out of stock is marked in every open builder, live, and in new ones; restocked, the mark goes")
    func buildersMarkWhatIsOutOfStock() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, _ in
            let cookie = try await app.newSession()
            let stream = try await app.openEventStream(cookie: cookie)
            _ = try await stream.nextEvent()  // retry
            let (_, opening) = try await stream.nextPatch()
            #expect(opening.html("picker-body")?.contains("(out of stock)") == false)

            #expect(try await Self.adjust(app, "wood=body/koa&change=-6&note=Water+damage").status == 303)
            let (_, marked) = try await stream.nextPatch()
            #expect(marked.targets == ["picker-body"])
            let body = try #require(marked.html("picker-body"))
            #expect(body.contains("for=\"body-koa\">Koa (+$100) <span class=\"option-note\">(out of stock)</span>"))
            #expect(body.components(separatedBy: "(out of stock)").count == 2)
            // A builder opened now shows it too.
            let newcomer = try await app.get("/")
            #expect(newcomer.text.contains("(out of stock)"))

            #expect(try await Self.adjust(app, "wood=body/koa&change=2&note=Delivery").status == 303)
            let (_, restocked) = try await stream.nextPatch()
            #expect(restocked.html("picker-body")?.contains("(out of stock)") == false)
            // A change that leaves every wood in stock changes no picker: nothing more is sent.
            #expect(try await Self.adjust(app, "wood=body/koa&change=1&note=Found+one").status == 303)
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let (_, next) = try await stream.nextPatch()
            #expect(!next.targets.contains("picker-body"))
            await stream.close()
        }
    }

    @Test("an order that takes the last piece of a wood marks it in another customer's open builder")
    func anOrderTakingTheLastPieceMarksIt() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            try await shop.store.setStock(of: .fretboard(.blackLimba), to: 1)
            let watcher = try await app.newSession()
            let stream = try await app.openEventStream(cookie: watcher)
            _ = try await stream.nextEvent()  // retry
            _ = try await stream.nextPatch()  // the opening
            let buyer = try await CheckoutControllerTests.checkedOut(app, guitar: "fretboard=blackLimba")
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: buyer).status == 204)
            let (_, marked) = try await stream.nextPatch()
            #expect(marked.targets == ["picker-fretboard"])
            #expect(
                marked.html("picker-fretboard")?.contains(
                    "Black Limba (+$120) <span class=\"option-note\">(out of stock)") == true)
            await stream.close()
        }
    }
}
