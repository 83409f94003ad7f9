import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive
import TestSupport
import Testing

@testable import LuthierWeb

/// The cart over real HTTP: adding from the builder, quantities, the discount code, the live
/// badge, analytics, and checking out and ordering every line.
@Suite("CartController over HTTP")
struct CartControllerTests {
    static let bandCode = "BAND10=10%"
    static let expiredCode = "OLD20=20%@2020-01-01"

    static func configure(_ configuration: inout LuthierConfiguration) {
        configuration.discountCodes = [bandCode, expiredCode].compactMap { try? DiscountCode(configuration: $0) }
    }

    /// Runs `body` on the web-test environment with the given in-memory analytics.
    static func run(
        analytics: MemoryAnalytics = MemoryAnalytics(),
        _ body: @Sendable (TestApp) async throws -> Void
    ) async throws {
        try await TestApp.run(configure: configure, environment: { .webTest(clock: $0, analytics: analytics) }) {
            app in try await body(app)
        }
    }

    /// Builds `form` in the session and adds it to the cart with a script post.
    static func add(_ app: TestApp, _ form: String, cookie: String) async throws {
        if !form.isEmpty {
            try #require(try await app.scriptPost(form: form, cookie: cookie).status == 204)
        }
        let response = try await app.scriptPost("/cart/items", form: "", cookie: cookie)
        try #require(response.status == 204, "\(response)")
    }

    static func cartPage(_ app: TestApp, cookie: String) async throws -> CartPageSnapshot {
        let response = try await app.get("/cart", cookie: cookie)
        try #require(response.status == 200, "\(response)")
        return CartPageSnapshot(html: response.text)
    }

    static let longV = CartLine.id(for: Guitar(shape: .longV))
    static let standard = CartLine.id(for: .standard)

    /// The builder form that chooses every field of `guitar`.
    static func form(_ guitar: Guitar) -> String {
        GuitarField.allCases.map { "\($0.rawValue)=\(guitar.rawValue(of: $0))" }.joined(separator: "&")
    }

    // MARK: adding and the page

    @Test("the same configuration added twice is one line of 2; another is a second line; the page adds up")
    func addAndPage() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            #expect(try await Self.cartPage(app, cookie: cookie).text("cart-empty") != nil)
            try await Self.add(app, "shape=longV", cookie: cookie)
            try await Self.add(app, "", cookie: cookie)
            try await Self.add(app, "shape=casual", cookie: cookie)

            let page = try await Self.cartPage(app, cookie: cookie)
            #expect(page.lineIDs == [Self.longV, Self.standard])
            #expect(page.text("quantity-\(Self.longV)") == "2")
            #expect(page.text("quantity-\(Self.standard)") == "1")
            #expect(page.text("line-total-\(Self.longV)") == "$4,150")
            #expect(page.text("line-total-\(Self.standard)") == "$2,000")
            #expect(page.text("cart-total") == "$6,150")
            #expect(page.text("cart-count") == "3 guitars")
            #expect(page.html.contains("Natural Long V with Mahogany body and Rosewood fretboard"))
            #expect(page.html.contains(#"<img class="guitar-artwork" src="/guitars/"#))
            #expect(page.badge == "3")
            #expect(BuilderPageSnapshot(html: try await app.get(cookie: cookie).text).badgeCount == "3")
            // The builder keeps its guitar: "Add to cart" does not start over.
            #expect(try await app.page(cookie: cookie).checkedValues["shape"] == ["casual"])
        }
    }

    @Test("without JavaScript every cart form answers 303 back to its page")
    func plainForms() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            let add = try await app.post("/cart/items", form: "", cookie: cookie)
            #expect(add.status == 303)
            #expect(add.header("Location") == "/")
            for (path, form) in [
                ("/cart/lines/\(Self.standard)/increment", ""), ("/cart/discount", "code=band10"),
                ("/cart/lines/\(Self.standard)/decrement", ""), ("/cart/clear", ""),
            ] {
                let response = try await app.post(path, form: form, cookie: cookie)
                #expect(response.status == 303, "\(path): \(response)")
                #expect(response.header("Location") == "/cart")
            }
        }
    }

    @Test("a first post to /cart/items starts a session and sets its cookie for the retention period")
    func addStartsSession() async throws {
        try await Self.run { app in
            let response = try await app.scriptPost("/cart/items", form: "", cookie: nil)
            #expect(response.status == 204)
            let cookie = try #require(SetCookie(response))
            #expect(cookie.attributes["max-age"] == String(30 * 24 * 3_600))
            #expect(cookie.attributes["httponly"] != nil)
            #expect(try await Self.cartPage(app, cookie: cookie.value).badge == "1")
        }
    }

    // MARK: quantities

    @Test("increment, decrement (a line of one goes), remove and clear")
    func lineActions() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            try await Self.add(app, "", cookie: cookie)
            try await Self.add(app, "shape=longV", cookie: cookie)
            let increment = "/cart/lines/\(Self.standard)/increment"
            #expect(try await app.scriptPost(increment, form: "", cookie: cookie).status == 204)
            #expect(try await Self.cartPage(app, cookie: cookie).text("quantity-\(Self.standard)") == "2")
            let decrement = "/cart/lines/\(Self.standard)/decrement"
            #expect(try await app.scriptPost(decrement, form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost(decrement, form: "", cookie: cookie).status == 204)
            #expect(try await Self.cartPage(app, cookie: cookie).lineIDs == [Self.longV])
            let remove = "/cart/lines/\(Self.longV)/remove"
            #expect(try await app.scriptPost(remove, form: "", cookie: cookie).status == 204)
            #expect(try await Self.cartPage(app, cookie: cookie).lineIDs == [])
            try await Self.add(app, "", cookie: cookie)
            #expect(try await app.scriptPost("/cart/clear", form: "", cookie: cookie).status == 204)
            let page = try await Self.cartPage(app, cookie: cookie)
            #expect(page.lineIDs == [])
            #expect(page.badge == "0")
        }
    }

    @Test("at most 10 of one guitar: the 11th is refused with 422 and the cart stays at 10")
    func quantityLimit() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            for _ in 0..<Cart.maximumQuantity { try await Self.add(app, "", cookie: cookie) }
            let refused = try await app.scriptPost("/cart/items", form: "", cookie: cookie)
            #expect(refused.status == 422)
            #expect(refused.text.contains("at most 10"), "\(refused.text)")
            let viaLine = try await app.scriptPost("/cart/lines/\(Self.standard)/increment", form: "", cookie: cookie)
            #expect(viaLine.status == 422)
            let page = try await Self.cartPage(app, cookie: cookie)
            #expect(page.text("quantity-\(Self.standard)") == "10")
            #expect(
                page.html.contains(
                    "id=\"increment-\(Self.standard)\" class=\"button secondary qty\" type=\"submit\" aria-label=\"One more Natural Casual with Mahogany body and Rosewood fretboard\" disabled"
                ))
        }
    }

    @Test("a cart is bounded: the 21st different guitar is refused with 422, the cart and its page stay bounded")
    func cartBounds() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            let guitars = Array(Guitar.allConfigurations.prefix(Cart.maximumLines + 1))
            for guitar in guitars.dropLast() {
                try await Self.add(app, Self.form(guitar), cookie: cookie)
            }
            try #require(
                try await app.scriptPost(form: Self.form(guitars[Cart.maximumLines]), cookie: cookie).status == 204)
            let refused = try await app.scriptPost("/cart/items", form: "", cookie: cookie)
            #expect(refused.status == 422)
            #expect(refused.text.contains("at most 20 different guitars"), "\(refused.text)")
            let page = try await Self.cartPage(app, cookie: cookie)
            #expect(page.lineIDs.count == Cart.maximumLines)
            #expect(page.badge == "20")
            // The largest cart page there can be stays well under a megabyte (it was 3.9 MB).
            #expect(page.html.utf8.count < 512 * 1024, "\(page.html.utf8.count) bytes")
        }
    }

    @Test("unknown lines are 404, unknown actions and stray fields 422, each saying why; nothing changes")
    func badLineRequests() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            try await Self.add(app, "", cookie: cookie)
            try await app.expectRefusal(
                of: "", to: "/cart/lines/sharpV-sky-koa-ebony/increment", cookie: cookie, status: 404,
                saying: "no line 'sharpV-sky-koa-ebony'")
            try await app.expectRefusal(
                of: "", to: "/cart/lines/\(Self.standard)/double", cookie: cookie, status: 422,
                saying: "increment, decrement or remove")
            try await app.expectRefusal(
                of: "shape=longV", to: "/cart/items", cookie: cookie, status: 422, saying: "shape")
            let wrongType = try await app.post(
                "/cart/clear", form: "{}", cookie: cookie, contentType: "application/json",
                headers: [("X-Requested-With", "fetch")])
            #expect(wrongType.status == 415)
            let page = try await Self.cartPage(app, cookie: cookie)
            #expect(page.lineIDs == [Self.standard])
            #expect(page.text("quantity-\(Self.standard)") == "1")
        }
    }

    // MARK: discount codes

    @Test("a valid code (any case) shows the discounted total; unknown or expired codes are refused and keep it")
    func discountCodes() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            try await Self.add(app, "", cookie: cookie)
            try await Self.add(app, "", cookie: cookie)
            #expect(try await app.scriptPost("/cart/discount", form: "code=band10", cookie: cookie).status == 204)
            var page = try await Self.cartPage(app, cookie: cookie)
            #expect(page.text("cart-total") == "$4,000")
            #expect(page.text("cart-discount") == "−$400")
            #expect(page.text("cart-discounted-total") == "$3,600")
            #expect(page.text("cart-discount-code") == "BAND10 (10 % off)")

            for (form, saying) in [
                ("code=FREE100", "'FREE100' is not a discount code we know"), ("code=OLD20", "has expired"),
                ("", "code"),
            ] {
                try await app.expectRefusal(of: form, to: "/cart/discount", cookie: cookie, status: 422, saying: saying)
            }
            let empty = try await app.scriptPost("/cart/discount", form: "code=", cookie: cookie)
            #expect(empty.status == 422)
            page = try await Self.cartPage(app, cookie: cookie)
            #expect(page.text("cart-discounted-total") == "$3,600")
        }
    }

    @Test("a code typed as markup comes back inert in the error page")
    func codeIsEscaped() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            let response = try await app.post(
                "/cart/discount", form: "code=%3Cscript%3Ealert(1)%3C%2Fscript%3E", cookie: cookie,
                headers: [("Accept", "text/html")])
            #expect(response.status == 422)
            #expect(!response.text.contains("<script>alert(1)"))
            #expect(response.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        }
    }

    // MARK: live

    @Test("every tab of the session follows the cart live: the badge, the lines and the totals")
    func liveBadge() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            let first = try await app.openEventStream(cookie: cookie)
            let second = try await app.openEventStream(cookie: cookie)
            for stream in [first, second] {
                #expect(try await stream.nextEvent().retry == "2000")
                let initial = try await stream.nextPatch().patch
                #expect(initial.html(CartFragments.badge)?.contains(">0</span>") == true)
            }
            try await Self.add(app, "shape=longV", cookie: cookie)
            for stream in [first, second] {
                var patch = try await stream.nextPatch().patch
                while patch.html(CartFragments.badge) == nil { patch = try await stream.nextPatch().patch }
                #expect(patch.html(CartFragments.badge)?.contains(">1</span>") == true)
                #expect(patch.html(CartFragments.lines)?.contains("quantity-\(Self.longV)") == true)
                #expect(patch.html(CartFragments.summary)?.contains("$2,075") == true)
            }
            await first.close()
            await second.close()
        }
    }

    // MARK: analytics

    @Test("every applied cart action is recorded anonymously; refused ones are not")
    func analyticsRecorded() async throws {
        let analytics = MemoryAnalytics()
        try await Self.run(analytics: analytics) { app in
            let cookie = try await app.newSession()
            try await Self.add(app, "shape=longV", cookie: cookie)
            #expect(
                try await app.scriptPost("/cart/lines/\(Self.longV)/increment", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/lines/nope/remove", form: "", cookie: cookie).status == 404)
            #expect(try await app.scriptPost("/cart/clear", form: "", cookie: cookie).status == 204)
            let recorded = await analytics.until { $0.count == 3 }
            #expect(recorded, "\(analytics.events)")
            #expect(analytics.events.map(\.action) == ["add", "increment", "clear"])
            #expect(analytics.events.map(\.configuration) == [Self.longV, Self.longV, nil])
            let session = try #require(app.liveSession(cookie))
            #expect(Set(analytics.events.map(\.sessionKey)) == [session.shop.analyticsKey])
            #expect(session.shop.analyticsKey != cookie && session.shop.analyticsKey != session.orderKey)
        }
    }

    @Test("a failing analytics recorder never fails or slows the cart")
    func analyticsFailing() async throws {
        let analytics = MemoryAnalytics()
        analytics.fail()
        try await Self.run(analytics: analytics) { app in
            let cookie = try await app.newSession()
            for _ in 0..<5 { try await Self.add(app, "", cookie: cookie) }
            #expect(try await Self.cartPage(app, cookie: cookie).text("quantity-\(Self.standard)") == "5")
            #expect(analytics.events.isEmpty)
        }
    }

    @Test("/admin/analytics: off without a token, 401 with a wrong one, counts with the right one")
    func adminAnalytics() async throws {
        let analytics = MemoryAnalytics()
        try await Self.run(analytics: analytics) { app in
            let page = try await app.get("/admin/analytics")
            #expect(page.status == 404)
        }
        let token = "an-admin-token-of-some-length"
        try await TestApp.run(
            configure: { $0.adminToken = token },
            environment: { .webTest(clock: $0, analytics: analytics) }
        ) { app in
            let cookie = try await app.newSession()
            try await Self.add(app, "shape=longV", cookie: cookie)
            try await Self.add(app, "", cookie: cookie)
            try await Self.add(app, "shape=casual", cookie: cookie)
            #expect(await analytics.until { $0.count == 3 })
            let none = try await app.get("/admin/analytics")
            #expect(none.status == 401)
            #expect(none.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try await app.get("/admin/analytics", headers: [("Authorization", "Bearer wrong")]).status == 401)
            #expect(try await app.get("/admin/analytics?token=\(token)x").status == 400)
            let page = try await app.get("/admin/analytics", headers: [("Authorization", "Bearer \(token)")])
            #expect(page.status == 200)
            #expect(page.text.contains("3 cart actions recorded"))
            #expect(page.text.contains("<tr><td>add</td><td class=\"number\">3</td></tr>"), "\(page.text)")
            #expect(page.text.contains("<tr><td>\(Self.longV)</td><td class=\"number\">2</td></tr>"))
            // Never in the address, where history and logs would keep it.
            #expect(try await app.get("/admin/analytics?token=\(token)").status == 400)
        }
    }

    // MARK: checkout and order

    @Test(
        "checking out a cart: every line with its availability, one estimate, the discount, then the order empties it")
    func checkoutAndOrder() async throws {
        try await TestShop.run(configure: Self.configure) { app, shop in
            let cookie = try await app.newSession()
            try await Self.add(app, "shape=longV&body=koa", cookie: cookie)
            try await Self.add(app, "", cookie: cookie)
            try await Self.add(app, "shape=casual&body=mahogany&fretboard=ebony", cookie: cookie)
            #expect(try await app.scriptPost("/cart/discount", form: "code=BAND10", cookie: cookie).status == 204)
            let response = try await app.post("/cart/checkout", form: "", cookie: cookie)
            #expect(response.status == 303)
            #expect(response.header("Location") == "/checkout")
            #expect(shop.calls == TestShop.Calls(availability: 1, estimate: 1, shippingOptions: 1))

            let page = try await CheckoutControllerTests.checkoutPage(app, cookie: cookie)
            #expect(page.html.contains("<h1>Your guitars</h1>"))
            #expect(page.html.contains("id=\"checkout-line-0\""))
            #expect(page.html.contains("id=\"checkout-line-1\""))
            #expect(!page.html.contains("id=\"checkout-line-2\""))
            #expect(page.html.components(separatedBy: "\">Available</span>").count - 1 == 2)
            // 2 × (2,000 + 75 Long V + 100 koa) + (2,000 + 100 ebony) = 6,450; 10 % off is 645;
            // pickup ships free.
            #expect(page.text("total-base") == "$6,000")
            #expect(page.text("total-additions") == "$450")
            #expect(page.text("total-discount") == "−$645")
            #expect(page.text("grand-total") == "$5,805")

            let order = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(order.status == 204, "\(order)")
            let number = try #require(try await CheckoutControllerTests.checkoutPage(app, cookie: cookie).orderNumber)
            let stored = try #require(try await shop.store.order(number: number))
            #expect(
                stored.lines == [
                    CartLine(guitar: Guitar(shape: .longV, body: .koa), quantity: 2),
                    CartLine(guitar: Guitar(fretboard: .ebony), quantity: 1),
                ])
            #expect(stored.discountCode == "BAND10")
            #expect(stored.quote.total == .dollars(5_805))
            #expect(try await shop.store.stock(of: .body(.koa)) == 4)
            #expect(try await shop.store.stock(of: .fretboard(.rosewood)) == 48)
            #expect(try await shop.store.stock(of: .fretboard(.ebony)) == 7)

            let cart = try await Self.cartPage(app, cookie: cookie)
            #expect(cart.lineIDs == [])
            #expect(cart.badge == "0")
            #expect(cart.text("cart-discount-code") == nil)

            let orderPage = try await app.get("/orders/\(number)", cookie: cookie)
            #expect(orderPage.status == 200)
            #expect(orderPage.text.components(separatedBy: "class=\"order-line\"").count - 1 == 2)
            #expect(orderPage.text.contains("Discount (BAND10)"))

            // Dismissing a cart's order keeps the builder's guitar.
            #expect(try await app.scriptPost("/checkout/dismiss", form: "", cookie: cookie).status == 204)
            #expect(try await app.page(cookie: cookie).checkedValues["fretboard"] == ["ebony"])
        }
    }

    @Test("a line the workshop cannot build makes the cart unorderable, and the page says which")
    func unavailableLine() async throws {
        try await TestShop.run { app, shop in
            try await shop.store.setStock(of: .body(.blackLimba), to: 1)
            let cookie = try await app.newSession()
            try await Self.add(app, "", cookie: cookie)
            try await Self.add(app, "body=blackLimba", cookie: cookie)
            try await Self.add(app, "", cookie: cookie)
            #expect(try await app.scriptPost("/cart/checkout", form: "", cookie: cookie).status == 204)
            let page = try await CheckoutControllerTests.checkoutPage(app, cookie: cookie)
            #expect(page.html.contains("Currently unavailable: Out of Black Limba body blanks"), "\(page.html)")
            #expect(page.orderButton == CheckoutPageSnapshot.Button(label: "Not all available", isDisabled: true))
            let order = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(order.status == 409)
            #expect(try await shop.store.openOrderCount() == 0)
            #expect(try await Self.cartPage(app, cookie: cookie).text("quantity-\(Self.standard)") == "1")
        }
    }

    @Test("an empty cart cannot be checked out")
    func emptyCheckout() async throws {
        try await Self.run { app in
            let cookie = try await app.newSession()
            let response = try await app.scriptPost("/cart/checkout", form: "", cookie: cookie)
            #expect(response.status == 409)
            #expect(response.text.contains("cart is empty"))
            #expect(try await app.get("/checkout", cookie: cookie).status == 303)
        }
    }
}

/// The parts of the cart page the tests read.
struct CartPageSnapshot: Sendable {
    let html: String

    func text(_ id: String) -> String? { BuilderPageSnapshot(html: html).text(ofElement: id) }

    /// The line ids, in page order.
    var lineIDs: [String] {
        html.matches(of: /data-line="([^"]*)"/).map { String($0.output.1) }
    }

    /// The number on the cart badge.
    var badge: String? { BuilderPageSnapshot(html: html).badgeCount }
}

extension BuilderPageSnapshot {
    /// The number on the header's cart badge.
    var badgeCount: String? {
        html.firstMatch(of: /id="cart-badge"[^>]*>Cart <span class="badge"[^>]*>([0-9]+)<\/span>/).map {
            String($0.output.1)
        }
    }
}
