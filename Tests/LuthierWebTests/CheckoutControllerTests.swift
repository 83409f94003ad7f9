import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive
import NIOHTTP1
import Synchronization
import TestSupport
import Testing

@testable import LuthierWeb
@testable import SQLMachinery

/// Checkout and ordering over real HTTP: the real application, the real workshop on SQLite, the
/// embedded rates, and the test clock for the currency debounce.
@Suite("CheckoutController over HTTP")
struct CheckoutControllerTests {
    static let longV = "shape=longV"
    static var orderNumberPattern: Regex<Substring> { /LU-[23456789ABCDEFGHJKLMNPQRSTUVWXYZ]{6}/ }
    static var accessKeyPattern: Regex<Substring> { /[0-9a-f]{32}/ }

    // MARK: helpers

    /// Builds `guitar` in a new session and checks out with a script post; returns the cookie.
    static func checkedOut(_ app: TestApp, guitar form: String = longV, planted: String? = nil) async throws -> String {
        var cookie = planted ?? ""
        if planted == nil { cookie = try await app.newSession() }
        if !form.isEmpty {
            let change = try await app.scriptPost(form: form, cookie: cookie)
            try #require(change.status == 204, "\(change)")
        }
        let checkout = try await app.scriptPost("/checkout", form: "", cookie: cookie)
        try #require(checkout.status == 204, "\(checkout)")
        return cookie
    }

    static func checkoutPage(_ app: TestApp, cookie: String) async throws -> CheckoutPageSnapshot {
        let response = try await app.get("/checkout", cookie: cookie)
        try #require(response.status == 200, "\(response)")
        return CheckoutPageSnapshot(html: response.text)
    }

    static func model(_ app: TestApp, cookie: String) throws -> CheckoutViewModel {
        let session = try #require(app.liveSession(cookie))
        return try #require(session.build.currentCheckout)
    }

    /// Lets the currency debounce's clock move by `duration`: waits until the debounce is asleep on
    /// the test clock (beside the server's own timers), then advances it.
    static func advanceDebounce(_ app: TestApp, by duration: Duration) async throws {
        let asleep = await app.clock.untilPending(atLeast: TestApp.serverTimers + 1)
        try #require(asleep, "the currency debounce never slept on the test clock")
        await app.clock.base.advance(by: duration)
    }

    /// Awaits the checkout's output until its prices are shown in `currency`.
    static func awaitPrices(in currency: Currency, of model: CheckoutViewModel) async throws {
        try await withTimeout(.seconds(10), waitingFor: "prices in \(currency.code)") {
            for await output in model.outputs()
            where !output.arePricesPending && output.currencies.first(where: \.isSelected)?.code == currency.code {
                return
            }
            throw EndOfOutputs()
        }
    }

    struct EndOfOutputs: Error {}

    /// Chooses `currency` and lets the debounce run out; returns once the page shows its prices.
    static func show(_ currency: Currency, _ app: TestApp, cookie: String) async throws {
        let response = try await app.scriptPost("/checkout/currency", form: "currency=\(currency.code)", cookie: cookie)
        try #require(response.status == 204, "\(response)")
        try await advanceDebounce(app, by: CheckoutViewModel.currencyDebounce)
        try await awaitPrices(in: currency, of: model(app, cookie: cookie))
    }

    /// Orders (with a script post) and reads the order number and link from the page.
    static func order(_ app: TestApp, cookie: String) async throws -> (number: String, link: String) {
        let response = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
        try #require(response.status == 204, "\(response)")
        let page = try await checkoutPage(app, cookie: cookie)
        return (try #require(page.orderNumber), try #require(page.orderLink))
    }

    // MARK: 1. POST /checkout and GET /checkout

    @Test("a plain POST /checkout answers 303 to /checkout, and the page shows the whole checkout")
    func plainCheckoutAndPage() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await app.newSession()
            let build = "shape=longV&color=earth&body=swampAsh&fretboard=ebony"
            #expect(try await app.scriptPost(form: build, cookie: cookie).status == 204)

            let response = try await app.post("/checkout", form: "", cookie: cookie)
            #expect(response.status == 303)
            #expect(response.header("Location") == "/checkout")
            #expect(response.headers["Set-Cookie"].isEmpty)
            #expect(shop.calls == TestShop.Calls(availability: 1, estimate: 1, shippingOptions: 1))

            let get = try await app.get("/checkout", cookie: cookie)
            #expect(get.status == 200)
            #expect(get.header("Content-Type") == "text/html; charset=utf-8")
            #expect(get.header("Cache-Control") == "no-store")
            let page = CheckoutPageSnapshot(html: get.text)
            #expect(page.html.contains("<h1>Your guitar</h1>"))
            #expect(page.html.contains("Earth Long V with Swamp Ash body and Ebony fretboard"))
            #expect(
                page.html.contains(
                    #"data-shape="longV" data-color="earth" data-body="swampAsh" data-fretboard="ebony""#
                )
            )
            #expect(
                page.parts == [
                    "Shape: Long V (+$75)", "Color: Earth (+$50)", "Body: Swamp Ash (+$80)",
                    "Fretboard: Ebony (+$100)",
                ]
            )
            #expect(page.html.contains("Order details"))
            #expect(page.html.contains("<dt>Estimated build time</dt>"))
            #expect(page.text("estimate") == "About 2 months")
            #expect(page.html.contains("<dt>Availability</dt>"))
            #expect(page.text("availability") == "Available")
            #expect(page.shippingOptions.map(\.name) == ["Pickup", "Ground", "Express"])
            #expect(page.shippingOptions.map(\.price) == ["Free", "$100", "$250"])
            #expect(page.shippingOptions.map(\.delivery) == ["As soon as ready", "2-6 weeks", "1 week"])
            #expect(page.snapshot.radioValues("option") == ["pickup", "ground", "express"])
            #expect(page.snapshot.checkedValues["option"] == ["pickup"])
            #expect(page.snapshot.radioValues("currency") == ["USD", "EUR", "GBP", "ILS"])
            #expect(page.snapshot.checkedValues["currency"] == ["USD"])
            #expect(page.currencySymbols == ["$", "€", "£", "₪"])
            for label in ["Base price", "Additions", "Shipping", "Grand total"] {
                #expect(page.html.contains(">\(label)</dt>"), "\(label)")
            }
            #expect(page.totals == ["$2,000", "$305", "Free", "$2,305"])
            #expect(page.orderButton?.label == "Order now")
            #expect(page.orderButton?.isDisabled == false)
            #expect(!page.html.contains("Congratulations!"))

            // A form post without a session starts one, sets its cookie and checks it out.
            let fresh = try await app.post("/checkout", form: "")
            #expect(fresh.status == 303)
            #expect(fresh.header("Location") == "/checkout")
            let cookie2 = try #require(SetCookie(fresh))
            let freshPage = try await Self.checkoutPage(app, cookie: cookie2.value)
            #expect(freshPage.totals == ["$2,000", "$0", "Free", "$2,000"])
            #expect(freshPage.parts.first == "Shape: Casual")
        }
    }

    @Test("a script's POST /checkout answers 204 once the checkout exists")
    func scriptCheckout() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: Self.longV, cookie: cookie).status == 204)
            let response = try await app.scriptPost("/checkout", form: "", cookie: cookie)
            #expect(response.status == 204)
            #expect(response.body.isEmpty)
            // Already there when the answer came: no waiting.
            let session = try #require(app.liveSession(cookie))
            #expect(session.build.currentCheckout?.checkout.lines.first?.guitar.shape == .longV)
            let page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.totals == ["$2,000", "$75", "Free", "$2,075"])
            #expect(page.parts.first == "Shape: Long V (+$75)")
            #expect(shop.calls == TestShop.Calls(availability: 1, estimate: 1, shippingOptions: 1))
        }
    }

    @Test("GET /checkout without a checkout goes back to the builder")
    func noCheckout() async throws {
        try await TestShop.run { app, shop in
            let none = try await app.get("/checkout")
            #expect(none.status == 303)
            #expect(none.header("Location") == "/")

            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: Self.longV, cookie: cookie).status == 204)
            let fresh = try await app.get("/checkout", cookie: cookie)
            #expect(fresh.status == 303)
            #expect(fresh.header("Location") == "/")

            let forged = try await app.get("/checkout", cookie: String(repeating: "a", count: 64))
            #expect(forged.status == 303)
            #expect(forged.header("Location") == "/")
            #expect(shop.calls == TestShop.Calls())
        }
    }

    @Test("POST /checkout with fields is refused with 422 and checks nothing out")
    func checkoutWithFields() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await app.newSession()
            let response = try await app.scriptPost("/checkout", form: "shape=longV", cookie: cookie)
            #expect(response.status == 422)
            #expect(response.text.contains("takes no fields"))
            #expect(response.text.contains("'shape'"))
            #expect(shop.calls == TestShop.Calls())
            #expect(try await app.get("/checkout", cookie: cookie).status == 303)
        }
    }

    // MARK: 2. One call each per checkout

    @Test("ten concurrent POST /checkout of one session make one checkout: each workshop call runs once")
    func concurrentCheckoutsCallOnce() async throws {
        try await TestShop.run(gated: true) { app, shop in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: Self.longV, cookie: cookie).status == 204)
            let request = TestRequest(
                method: .POST,
                path: "/checkout",
                headers: [
                    ("Cookie", "\(TestApp.cookieName)=\(cookie)"), ("Content-Type", TestApp.formType),
                    ("X-Requested-With", "fetch"),
                ],
                body: []
            )
            var connections: [HTTPTestConnection] = []
            for _ in 0..<10 {
                connections.append(try await HTTPTestConnection.open(port: app.port, request: request))
            }
            for connection in connections { try await connection.requestSent() }
            let answered = Tally()
            let calls = TestShop.Calls(availability: 1, estimate: 1, shippingOptions: 1)
            // The three questions go in one call (one read of the store), counted before it waits
            // at the gate: one held, three counted.
            #expect(await shop.gate.until(waiting: 1))
            #expect(shop.gate.waiting == 1)
            #expect(shop.calls == calls)

            try await withThrowingTaskGroup(of: TestHTTPResponse.self) { group in
                for connection in connections {
                    group.addTask {
                        let response = try await connection.response()
                        answered.add()
                        return response
                    }
                }
                // Every tab shows the button loading while the calls are held.
                let builder = try await app.page(cookie: cookie)
                #expect(builder.checkoutLabel == "Checking out…")
                #expect(builder.html.contains("type=\"submit\" disabled aria-busy=\"true\">Checking out…"))
                #expect(answered.count == 0)
                #expect(try await app.get("/checkout", cookie: cookie).status == 303)

                shop.gate.open()
                var statuses: [Int] = []
                for try await response in group { statuses.append(response.status) }
                #expect(statuses == Array(repeating: 204, count: 10))
            }
            #expect(shop.calls == calls, "\(shop.calls)")
            #expect(shop.checkoutsMade == 1)
            #expect(try await Self.checkoutPage(app, cookie: cookie).totals.last == "$2,075")
            #expect(try await app.page(cookie: cookie).checkoutLabel == "Checkout ($2,075)")

            // A checkout posted after that one finished is a new checkout: the counts do count.
            #expect(try await app.scriptPost("/checkout", form: "", cookie: cookie).status == 204)
            #expect(shop.calls == TestShop.Calls(availability: 2, estimate: 2, shippingOptions: 2))
            #expect(shop.checkoutsMade == 2)
        }
    }

    // MARK: 3. Shipping

    @Test("every shipping option: the shipping row and the grand total follow")
    func shippingOptions() async throws {
        try await TestShop.run { app, _ in
            let cookie = try await Self.checkedOut(app)
            let cases: [(option: String, shipping: String, total: String, delivery: String)] = [
                ("express", "$250", "$2,325", "1 week"),
                ("ground", "$100", "$2,175", "2-6 weeks"),
                ("pickup", "Free", "$2,075", "As soon as ready"),
            ]
            for (index, item) in cases.enumerated() {
                let script = index % 2 == 0
                let response =
                    script
                    ? try await app.scriptPost("/checkout/shipping", form: "option=\(item.option)", cookie: cookie)
                    : try await app.post("/checkout/shipping", form: "option=\(item.option)", cookie: cookie)
                #expect(response.status == (script ? 204 : 303), "\(item.option)")
                if !script { #expect(response.header("Location") == "/checkout") }
                let page = try await Self.checkoutPage(app, cookie: cookie)
                #expect(page.totals == ["$2,000", "$75", item.shipping, item.total], "\(item.option)")
                #expect(page.snapshot.checkedValues["option"] == [item.option])
                #expect(page.text("delivery-time") == item.delivery)
                #expect(page.orderButton?.label == "Order now")
            }
        }
    }

    static let badShippingForms: [BadField] = [
        BadField("unknown option", "option=overnight", mentions: ["'option'", "overnight", "pickup, ground, express"]),
        BadField("case matters", "option=Express", mentions: ["'option'", "pickup, ground, express"]),
        BadField("empty value", "option=", mentions: ["'option'", "pickup, ground, express"]),
        BadField("missing field", "", mentions: ["'option'", "required"]),
        BadField("duplicate field", "option=ground&option=pickup", mentions: ["'option'", "more than once"]),
        BadField("duplicate, same value", "option=ground&option=ground", mentions: ["'option'", "more than once"]),
        BadField("unknown field", "shipping=ground", mentions: ["'shipping'", "allowed fields: option"]),
        BadField("unknown field beside", "option=ground&gift=yes", mentions: ["'gift'", "allowed fields: option"]),
    ]

    @Test("a bad shipping post is refused with 422, names the field, and changes nothing", arguments: badShippingForms)
    func badShipping(_ bad: BadField) async throws {
        try await TestShop.run { app, _ in
            let cookie = try await Self.checkedOut(app)
            #expect(
                try await app.scriptPost("/checkout/shipping", form: "option=express", cookie: cookie).status == 204)
            let response = try await app.scriptPost("/checkout/shipping", form: bad.form, cookie: cookie)
            #expect(response.status == 422)
            #expect(response.header("Content-Type") == "text/plain; charset=utf-8")
            for mention in bad.mentions {
                #expect(response.text.contains(mention), "\(response.text) should mention \(mention)")
            }
            let page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.snapshot.checkedValues["option"] == ["express"])
            #expect(page.totals == ["$2,000", "$75", "$250", "$2,325"])
        }
    }

    @Test("shipping, currency and order posts without a checkout answer 409")
    func postsWithoutCheckout() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await app.newSession()
            for (path, form) in [
                ("/checkout/shipping", "option=ground"), ("/checkout/currency", "currency=EUR"),
                ("/checkout/order", ""),
            ] {
                let response = try await app.scriptPost(path, form: form, cookie: cookie)
                #expect(response.status == 409, "\(path): \(response)")
                #expect(response.text.contains("no checkout"), "\(path)")
            }
            #expect(try await shop.store.openOrderCount() == 0)
            #expect(shop.calls == TestShop.Calls())
        }
    }

    // MARK: 4. Currency

    struct CurrencyCase: Sendable, CustomTestStringConvertible {
        let currency: Currency
        /// Shape, then base price, additions, shipping (Express) and grand total.
        let shape: String
        let totals: [String]
        /// Pickup, Ground, Express.
        let options: [String]

        var testDescription: String { currency.code }
    }

    /// A Long V with Express shipping (USD: $2,000 + $75 + $250 = $2,325) in each currency: each
    /// dollar amount × the embedded rate, rounded half-to-even to the cent and then to whole units.
    static let currencyCases: [CurrencyCase] = [
        // 0.83: 1,660.00; 62.25; 207.50 → 208; total 1,929.75 → 1,930; Ground 83.00.
        CurrencyCase(
            currency: .eur, shape: "Long V (+€62)", totals: ["€1,660", "€62", "€208", "€1,930"],
            options: ["Free", "€83", "€208"]
        ),
        // 0.71: 1,420.00; 53.25; 177.50 → 178; total 1,650.75 → 1,651; Ground 71.00.
        CurrencyCase(
            currency: .gbp, shape: "Long V (+£53)", totals: ["£1,420", "£53", "£178", "£1,651"],
            options: ["Free", "£71", "£178"]
        ),
        // 3.25: 6,500.00; 243.75 → 244; 812.50 → 812 (even); total 7,556.25 → 7,556; Ground 325.00.
        CurrencyCase(
            currency: .ils, shape: "Long V (+₪244)", totals: ["₪6,500", "₪244", "₪812", "₪7,556"],
            options: ["Free", "₪325", "₪812"]
        ),
        CurrencyCase(
            currency: .usd, shape: "Long V (+$75)", totals: ["$2,000", "$75", "$250", "$2,325"],
            options: ["Free", "$100", "$250"]
        ),
    ]

    @Test(
        "each currency: placeholders and no ordering until the debounce has run out, then its prices",
        arguments: currencyCases)
    func currency(_ expected: CurrencyCase) async throws {
        try await TestShop.run { app, _ in
            let cookie = try await Self.checkedOut(app)
            #expect(
                try await app.scriptPost("/checkout/shipping", form: "option=express", cookie: cookie).status == 204)
            if expected.currency == .usd {
                // Dollars are shown from the start: leave them first, to come back to them.
                try await Self.show(.eur, app, cookie: cookie)
                #expect(try await Self.checkoutPage(app, cookie: cookie).totals.last == "€1,930")
            }

            let response = try await app.scriptPost(
                "/checkout/currency", form: "currency=\(expected.currency.code)", cookie: cookie)
            #expect(response.status == 204)

            // The picker follows at once; the prices wait for the rate.
            var page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.snapshot.checkedValues["currency"] == [expected.currency.code])
            #expect(page.totals == ["…", "…", "…", "…"])
            #expect(page.shippingOptions.map(\.price) == ["Free", "…", "…"])
            #expect(page.parts.first == "Shape: Long V (+…)")
            #expect(page.html.contains("Loading prices…"))
            #expect(page.orderButton?.isDisabled == true)
            #expect(page.orderButton?.label == "Order now")
            // Ordering is refused meanwhile.
            let early = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(early.status == 409)
            #expect(early.text.contains("Prices are still loading"))

            // 1 ms short of the debounce: still waiting.
            try await Self.advanceDebounce(app, by: CheckoutViewModel.currencyDebounce - .milliseconds(1))
            page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.totals == ["…", "…", "…", "…"])
            #expect(page.orderButton?.isDisabled == true)

            try await Self.advanceDebounce(app, by: .milliseconds(1))
            try await Self.awaitPrices(in: expected.currency, of: Self.model(app, cookie: cookie))
            page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.snapshot.checkedValues["currency"] == [expected.currency.code])
            #expect(page.totals == expected.totals)
            #expect(page.shippingOptions.map(\.price) == expected.options)
            #expect(page.parts.first == "Shape: \(expected.shape)")
            #expect(!page.html.contains("…"))
            #expect(page.orderButton?.isDisabled == false)
            if expected.currency == .usd {
                #expect(page.text("rates-note") == nil)
            } else {
                #expect(page.text("rates-note")?.hasPrefix("\(expected.currency.code) rates as of ") == true)
            }
        }
    }

    static let badCurrencies: [BadField] = [
        BadField("lowercase", "currency=eur", mentions: ["'currency'", "'eur'", "USD, EUR, GBP, ILS"]),
        BadField("unsupported", "currency=JPY", mentions: ["'currency'", "'JPY'", "USD, EUR, GBP, ILS"]),
        BadField("empty", "currency=", mentions: ["'currency'", "USD, EUR, GBP, ILS"]),
        BadField("missing", "", mentions: ["'currency'", "required"]),
        BadField("duplicate", "currency=EUR&currency=GBP", mentions: ["'currency'", "more than once"]),
        BadField("unknown field", "code=EUR", mentions: ["'code'", "allowed fields: currency"]),
    ]

    @Test(
        "a bad currency is refused with 422, names the field and the currencies, and changes nothing",
        arguments: badCurrencies)
    func badCurrency(_ bad: BadField) async throws {
        try await TestShop.run { app, _ in
            let cookie = try await Self.checkedOut(app)
            let response = try await app.scriptPost("/checkout/currency", form: bad.form, cookie: cookie)
            #expect(response.status == 422)
            for mention in bad.mentions {
                #expect(response.text.contains(mention), "\(response.text) should mention \(mention)")
            }
            let page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.snapshot.checkedValues["currency"] == ["USD"])
            #expect(page.totals == ["$2,000", "$75", "Free", "$2,075"])
            #expect(page.orderButton?.isDisabled == false)
            // Nothing is waiting on the clock for it.
            #expect(app.clock.pendingCount <= TestApp.serverTimers)
        }
    }

    // MARK: 5. Ordering

    @Test("ordering: 303 back to the checkout, congratulations, the order number and its link; stored once")
    func order() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await Self.checkedOut(app)
            #expect(
                try await app.scriptPost("/checkout/shipping", form: "option=express", cookie: cookie).status == 204)
            let response = try await app.post("/checkout/order", form: "", cookie: cookie)
            #expect(response.status == 303)
            #expect(response.header("Location") == "/checkout")

            let page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.html.contains("Congratulations!"))
            #expect(page.html.contains("We're working on your new guitar! Hang tight, we'll be in touch"))
            let number = try #require(page.orderNumber)
            #expect(number.wholeMatch(of: Self.orderNumberPattern) != nil, "\(number)")
            let link = try #require(page.orderLink)
            let prefix = "/orders/\(number)?key="
            #expect(link.hasPrefix(prefix), "\(link)")
            #expect(String(link.dropFirst(prefix.count)).wholeMatch(of: Self.accessKeyPattern) != nil, "\(link)")
            #expect(page.html.contains("action=\"/checkout/dismiss\""))
            #expect(page.orderButton == nil)

            let stored = try #require(try await shop.store.order(number: number))
            #expect(stored.checkoutID == "checkout-1")
            #expect(stored.lines == [CartLine(guitar: Guitar(shape: .longV), quantity: 1)])
            #expect(stored.shipping == .express)
            #expect(stored.currency == .usd)
            #expect(stored.quote.total == .dollars(2_325))
            #expect(link == "/orders/\(number)?key=\(stored.accessKey)")
            #expect(try await shop.store.openOrderCount() == 1)
            #expect(try await shop.store.stock(of: .body(.mahogany)) == 39)
            #expect(try await shop.store.stock(of: .fretboard(.rosewood)) == 49)

            // Ordering again is the same order.
            #expect(try await app.post("/checkout/order", form: "", cookie: cookie).status == 303)
            #expect(try await Self.checkoutPage(app, cookie: cookie).orderNumber == number)
            #expect(try await shop.store.openOrderCount() == 1)
            // And the checkout no longer changes.
            #expect(try await app.scriptPost("/checkout/shipping", form: "option=pickup", cookie: cookie).status == 204)
            #expect(try await shop.store.order(number: number)?.shipping == .express)
        }
    }

    @Test("fifty concurrent order posts of one checkout make exactly one order")
    func fiftyConcurrentOrders() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await Self.checkedOut(app, guitar: "body=koa&fretboard=ebony")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status }
                }
                var statuses: [Int] = []
                for try await status in group { statuses.append(status) }
                return statuses
            }
            #expect(statuses == Array(repeating: 204, count: 50))
            #expect(try await shop.store.openOrderCount() == 1)
            #expect(try await shop.store.stock(of: .body(.koa)) == 5)
            #expect(try await shop.store.stock(of: .fretboard(.ebony)) == 7)
            #expect(try await shop.store.stock(of: .body(.mahogany)) == 40)
            let order = try #require(try await shop.store.order(checkoutID: "checkout-1"))
            #expect(try await Self.checkoutPage(app, cookie: cookie).orderNumber == order.number)
        }
    }

    @Test("a wood that ran out after the checkout: 409 naming it, no order, and the page says unavailable")
    func woodRanOutAfterCheckout() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await Self.checkedOut(app, guitar: "body=koa")
            #expect(try await Self.checkoutPage(app, cookie: cookie).text("availability") == "Available")
            try await shop.store.setStock(of: .body(.koa), to: 0)

            let response = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(response.status == 409)
            #expect(response.text.contains("Koa body blanks"), "\(response.text)")
            #expect(try await shop.store.openOrderCount() == 0)
            #expect(try await shop.store.stock(of: .fretboard(.rosewood)) == 50)

            let page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.text("availability") == "Currently unavailable")
            #expect(page.orderButton?.label == "Model unavailable")
            #expect(page.orderButton?.isDisabled == true)
            #expect(page.text("checkout-notice")?.contains("Koa body blanks") == true)
            #expect(!page.html.contains("Congratulations!"))

            // Posting again is refused the same way, and still orders nothing.
            let again = try await app.post("/checkout/order", form: "", cookie: cookie)
            #expect(again.status == 409)
            #expect(try await shop.store.openOrderCount() == 0)
        }
    }

    @Test("a checkout of a guitar whose wood is out of stock is unavailable and cannot be ordered")
    func unavailableCheckout() async throws {
        try await TestShop.run { app, shop in
            try await shop.store.setStock(of: .fretboard(.blackLimba), to: 0)
            let cookie = try await Self.checkedOut(app, guitar: "fretboard=blackLimba")
            let page = try await Self.checkoutPage(app, cookie: cookie)
            #expect(page.text("availability") == "Currently unavailable")
            #expect(page.orderButton?.label == "Model unavailable")
            #expect(page.orderButton?.isDisabled == true)
            // The scarce wood adds a month (0 ≤ 5 left).
            #expect(page.text("estimate") == "About 3 months")

            let response = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(response.status == 409)
            #expect(response.text.contains("unavailable"))
            #expect(try await shop.store.openOrderCount() == 0)
            #expect(try await shop.store.stock(of: .body(.mahogany)) == 40)
        }
    }

    @Test("POST /checkout/order with fields is refused with 422 and orders nothing")
    func orderWithFields() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await Self.checkedOut(app)
            let response = try await app.scriptPost("/checkout/order", form: "quantity=2", cookie: cookie)
            #expect(response.status == 422)
            #expect(response.text.contains("'quantity'"))
            #expect(try await shop.store.openOrderCount() == 0)
        }
    }

    // MARK: 6. Order pages

    @Test("an order page is shown to the session that ordered and to its link, and to nobody else")
    func orderPageAccess() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await Self.checkedOut(app)
            let (number, link) = try await Self.order(app, cookie: cookie)
            let key = try #require(try await shop.store.order(number: number)?.accessKey)
            let other = try await app.newSession()

            let own = try await app.get("/orders/\(number)", cookie: cookie)
            #expect(own.status == 200)
            #expect(own.header("Cache-Control") == "no-store")
            #expect(own.text.contains("<h1>Order \(number)</h1>"))
            #expect(own.text.contains("Long V (+$75)"))
            #expect(own.text.contains("id=\"order-total\">$2,075<"))
            #expect(own.text.contains("id=\"order-status\" class=\"status\">Wood selection<"))
            #expect(own.text.contains("data-events=\"/orders/\(number)/events\""))

            for cookie in [nil, other] {
                let withKey = try await app.get(link, cookie: cookie)
                #expect(withKey.status == 200, "\(String(describing: cookie))")
                #expect(withKey.text.contains("<h1>Order \(number)</h1>"))
            }

            let wrongKey = String(key.dropLast()) + (key.hasSuffix("0") ? "1" : "0")
            let refused: [(path: String, cookie: String?)] = [
                ("/orders/\(number)", other),
                ("/orders/\(number)", nil),
                ("/orders/\(number)?key=", other),
                ("/orders/\(number)?key=abc", nil),
                ("/orders/\(number)?key=\(wrongKey)", other),
                ("/orders/\(number)?key=\(key.uppercased())", nil),
                ("/orders/\(number)?key=\(key)0", nil),
                ("/orders/LU-222222?key=\(key)", cookie),
                ("/orders/\(number.lowercased())", cookie),
                ("/orders/\(String(repeating: "L", count: 33))", cookie),
                ("/orders/\(String(repeating: "LU-", count: 2_000))?key=\(key)", cookie),
            ]
            for (path, cookie) in refused {
                let response = try await app.get(path, cookie: cookie)
                #expect(response.status == 404, "\(path.prefix(80))")
                #expect(!response.text.contains(number), "\(path.prefix(80))")
            }
        }
    }

    // MARK: 7. Dismiss and leave

    @Test("dismiss after ordering: back to a builder reset to the defaults, and no checkout")
    func dismiss() async throws {
        try await TestShop.run { app, _ in
            let cookie = try await Self.checkedOut(app, guitar: "shape=sharpV&color=sky")
            _ = try await Self.order(app, cookie: cookie)
            let response = try await app.post("/checkout/dismiss", form: "", cookie: cookie)
            #expect(response.status == 303)
            #expect(response.header("Location") == "/")
            let builder = try await app.page(cookie: cookie)
            #expect(builder.description == BuildControllerTests.defaultDescription)
            #expect(builder.checkedValues == BuildControllerTests.defaultChecked)
            #expect(builder.checkoutLabel == "Checkout ($2,000)")
            let checkout = try await app.get("/checkout", cookie: cookie)
            #expect(checkout.status == 303)
            #expect(checkout.header("Location") == "/")
        }
    }

    @Test("leave the checkout: back to the builder with the guitar kept, and no checkout")
    func leave() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await Self.checkedOut(app, guitar: "shape=sharpV&color=sky")
            let response = try await app.post("/checkout/leave", form: "", cookie: cookie)
            #expect(response.status == 303)
            #expect(response.header("Location") == "/")
            let builder = try await app.page(cookie: cookie)
            #expect(builder.description == "Sky Sharp V with Mahogany body and Rosewood fretboard")
            #expect(builder.checkoutLabel == "Checkout ($2,250)")
            #expect(try await app.get("/checkout", cookie: cookie).status == 303)
            // The left checkout cannot be ordered.
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 409)
            #expect(try await shop.store.openOrderCount() == 0)

            // A script's leave answers 204.
            #expect(try await app.scriptPost("/checkout", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout/leave", form: "", cookie: cookie).status == 204)
            #expect(try await app.get("/checkout", cookie: cookie).status == 303)
        }
    }

    // MARK: 9. Cross-site posts

    @Test("a cross-site order post is refused with 403 and orders nothing")
    func crossSiteOrder() async throws {
        try await TestShop.run { app, shop in
            let cookie = try await Self.checkedOut(app)
            let crossSite: [(name: String, value: String)] = [
                ("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site"),
            ]
            for header in crossSite {
                let response = try await app.scriptPost("/checkout/order", form: "", cookie: cookie, headers: [header])
                #expect(response.status == 403, "\(header)")
                #expect(response.text.contains("other sites"))
            }
            #expect(try await shop.store.openOrderCount() == 0)
            #expect(try await Self.checkoutPage(app, cookie: cookie).orderButton?.label == "Order now")

            // From the shop's own origin it works.
            let own = try await app.scriptPost(
                "/checkout/order", form: "", cookie: cookie, headers: [("Origin", "http://127.0.0.1:\(app.port)")])
            #expect(own.status == 204)
            #expect(try await shop.store.openOrderCount() == 1)
        }
    }
}

// MARK: - 8. The whole flow on a live event stream

extension CheckoutControllerTests {
    /// Reads blocks until a `navigate` event; returns the patches before it and its location.
    static func untilNavigate(_ stream: EventStreamClient) async throws -> (patches: [Patch], location: String) {
        var patches: [Patch] = []
        while true {
            let event = try await stream.nextEvent()
            if event.event == "navigate" { return (patches, event.data.joined(separator: "\n")) }
            patches.append(try event.patch())
        }
    }

    /// Reads patches until one satisfies `condition`; a navigate on the way fails.
    static func patch(
        _ stream: EventStreamClient,
        where condition: (Patch) -> Bool
    ) async throws -> Patch {
        while true {
            let event = try await stream.nextEvent()
            let patch = try event.patch()
            if condition(patch) { return patch }
        }
    }

    @Test("the whole flow on live event streams: build, check out, shipping, currency, order, dismiss")
    func liveFlow() async throws {
        try await TestShop.run(gated: true) { app, shop in
            let cookie = try await app.newSession()
            let (stream, _, _) = try await EventStreamConnectionTests.openAndReadOpening(app, cookie: cookie)
            let (second, _, _) = try await EventStreamConnectionTests.openAndReadOpening(app, cookie: cookie)

            // A build change.
            #expect(try await app.scriptPost(form: Self.longV, cookie: cookie).status == 204)
            for tab in [stream, second] {
                let (_, change) = try await tab.nextPatch()
                #expect(change.html("guitar-price") == "$2,075")
            }

            // Check out: every tab shows the button loading while the workshop holds the calls.
            let checkout = Task { try await app.scriptPost("/checkout", form: "", cookie: cookie) }
            for tab in [stream, second] {
                let (_, loading) = try await tab.nextPatch()
                // The builder's button and the cart page's "Check out" both show the checkout loading.
                #expect(loading.targets == ["checkout-action", "cart-actions"])
                #expect(loading.html("cart-actions")?.contains(">Checking out…</button>") == true)
                let button = try #require(loading.html("checkout-action"))
                #expect(button.contains("disabled"))
                #expect(button.contains(">Checking out…</button>"))
            }
            #expect(await shop.gate.until(waiting: 1))
            #expect(shop.gate.waiting == 1)
            shop.gate.open()
            #expect(try await checkout.value.status == 204)
            for tab in [stream, second] {
                let (patches, location) = try await Self.untilNavigate(tab)
                #expect(location == "/checkout")
                let button = patches.compactMap { $0.html("checkout-action") }.last
                #expect(button?.contains(">Checkout ($2,075)</button>") == true)
                #expect(button?.contains("disabled") == false)
            }
            #expect(shop.calls == TestShop.Calls(availability: 1, estimate: 1, shippingOptions: 1))

            // A page opened now is already on the checkout: no navigate for it, now or later.
            let (late, _, opening) = try await EventStreamConnectionTests.openAndReadOpening(app, cookie: cookie)
            #expect(opening.targets.contains("guitar-price"))

            // Shipping.
            #expect(
                try await app.scriptPost("/checkout/shipping", form: "option=express", cookie: cookie).status == 204)
            for tab in [stream, second, late] {
                let shipping = try await Self.patch(tab) { $0.html("checkout-totals")?.contains("$2,325") == true }
                #expect(shipping.html("checkout-totals")?.contains("id=\"grand-total\">$2,325<") == true)
            }

            // Currency: placeholders and no ordering, then euros once the debounce has run out.
            #expect(try await app.scriptPost("/checkout/currency", form: "currency=EUR", cookie: cookie).status == 204)
            let pending = try await Self.patch(stream) { $0.html("checkout-totals")?.contains("…") == true }
            #expect(pending.html("checkout-totals")?.contains("id=\"grand-total\">…<") == true)
            #expect(pending.html("checkout-currency")?.contains("value=\"EUR\" checked") == true)
            #expect(pending.html("checkout-order")?.contains("disabled") == true)
            try await Self.advanceDebounce(app, by: CheckoutViewModel.currencyDebounce)
            let euros = try await Self.patch(stream) { $0.html("checkout-totals")?.contains("€") == true }
            #expect(euros.html("checkout-totals")?.contains("id=\"grand-total\">€1,930<") == true)
            #expect(euros.html("checkout-shipping")?.contains("€208") == true)
            #expect(euros.html("checkout-order")?.contains("disabled") == false)

            // Order.
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 204)
            let ordered = try await Self.patch(stream) {
                $0.html("checkout-order")?.contains("Congratulations!") == true
            }
            let number = try #require(try await shop.store.order(checkoutID: "checkout-1")?.number)
            #expect(ordered.html("checkout-order")?.contains(number) == true)
            #expect(try await shop.store.order(number: number)?.currency == .eur)
            #expect(try await shop.store.order(number: number)?.quote.total.minorUnits == 192_975)

            // Dismiss: every open page goes back to the builder, reset.
            #expect(try await app.scriptPost("/checkout/dismiss", form: "", cookie: cookie).status == 204)
            for tab in [stream, second, late] {
                let (patches, location) = try await Self.untilNavigate(tab)
                #expect(location == "/")
                #expect(patches.compactMap { $0.html("guitar-price") }.last == "$2,000")
            }
            await stream.close()
            await second.close()
            await late.close()
        }
    }
}

/// A count that concurrent tasks add to.
final class Tally: Sendable {
    private let value = Mutex(0)

    var count: Int { value.withLock { $0 } }

    func add() { value.withLock { $0 += 1 } }
}

/// A refused form and what its message must say.
struct BadField: Sendable, CustomTestStringConvertible {
    let name: String
    let form: String
    let mentions: [String]

    init(_ name: String, _ form: String, mentions: [String]) {
        self.name = name
        self.form = form
        self.mentions = mentions
    }

    var testDescription: String { name }
}

/// The parts of the checkout page the tests read.
struct CheckoutPageSnapshot: Sendable {
    let html: String

    var snapshot: BuilderPageSnapshot { BuilderPageSnapshot(html: html) }

    func text(_ id: String) -> String? { snapshot.text(ofElement: id) }

    /// "Title: priced name" for each part row.
    var parts: [String] {
        html.matches(of: /<dt>(Shape|Color|Body|Fretboard)<\/dt><dd>([^<]*)<\/dd>/).map {
            "\($0.output.1): \($0.output.2)"
        }
    }

    struct ShippingRow: Equatable, Sendable {
        var name: String
        var delivery: String
        var price: String
    }

    var shippingOptions: [ShippingRow] {
        let row =
            /<span class="option-name">([^<]*)<\/span> <span class="option-detail">([^<]*)<\/span> <span class="option-price">([^<]*)<\/span>/
        return html.matches(of: row).map {
            ShippingRow(name: String($0.output.1), delivery: String($0.output.2), price: String($0.output.3))
        }
    }

    var currencySymbols: [String] {
        html.matches(of: /<span class="currency-symbol">([^<]*)<\/span>/).map { String($0.output.1) }
    }

    /// Base price, additions, shipping, grand total.
    var totals: [String?] {
        ["total-base", "total-additions", "total-shipping", "grand-total"].map(text)
    }

    struct Button: Equatable, Sendable {
        var label: String
        var isDisabled: Bool
    }

    var orderButton: Button? {
        guard let match = html.firstMatch(of: /<button id="order-button"([^>]*)>([^<]*)<\/button>/) else { return nil }
        return Button(label: String(match.output.2), isDisabled: match.output.1.contains(" disabled"))
    }

    var orderNumber: String? { text("order-number") }

    var orderLink: String? {
        html.firstMatch(of: /id="order-link" href="([^"]*)"/).map { String($0.output.1) }
    }
}
