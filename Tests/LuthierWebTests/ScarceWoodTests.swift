import LuthierDomain
import LuthierFeatures
import LuthierLive
import Synchronization
import Testing

@testable import LuthierWeb

/// One order, or one customer's many, cannot sweep up a scarce wood: the tester's one anonymous
/// session with 36 guitars in 8 lines no longer empties every scarce wood in half a second.
@Suite("Scarce woods over HTTP")
struct ScarceWoodTests {
    static func configure(_ configuration: inout LuthierConfiguration) {
        configuration.scarceWoods = ScarceWoodRule(scarceAt: 12, perOrder: 2, perCustomer: 3, window: .seconds(60))
    }

    /// A new session whose cart holds `quantity` of each guitar in `forms`, checked out.
    static func cartCheckedOut(_ app: TestApp, _ forms: [String], quantity: Int) async throws -> String {
        let cookie = try await app.newSession()
        for form in forms {
            try await CartControllerTests.add(app, form, cookie: cookie)
            let line = try #require(app.liveSession(cookie)?.cart.latestState.cart.lines.last?.id)
            for _ in 1..<quantity {
                let more = try await app.scriptPost("/cart/lines/\(line)/increment", form: "", cookie: cookie)
                try #require(more.status == 204, "\(more)")
            }
        }
        try #require(try await app.scriptPost("/cart/checkout", form: "", cookie: cookie).status == 204)
        return cookie
    }

    @Test("with no wood ever scarce, an order reads no stock for the rule: a statement saved on every order")
    func anOrderWithTheRuleOffReadsNoStock() async throws {
        let shop = try TestShop(gated: false)
        let live = WorkshopAdminClient.live(store: shop.store)
        let reads = Mutex(0)
        var admin = live
        admin.inStock = {
            reads.withLock { $0 += 1 }
            return try await live.inStock()
        }
        try await TestApp.run(
            configure: { $0.scarceWoods = .off }, environment: shop.environment(clock:), admin: admin
        ) { app in
            let cookie = try await Self.cartCheckedOut(app, ["body=koa"], quantity: 1)
            let before = reads.withLock { $0 }
            let placed = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(placed.status == 204, "\(placed)")
            #expect(try await shop.store.openOrderCount() == 1)
            #expect(reads.withLock { $0 } == before)
        }
    }

    @Test("one order sweeping the scarce woods is refused with 422 naming the wood and the limit; nothing is taken")
    func oneOrderCannotSweepTheScarceWoods() async throws {
        try await TestShop.run(configure: Self.configure) { app, shop in
            // The tester's cart: every scarce wood, 36 guitars in 8 lines.
            let guitars = [
                "body=blackLimba&fretboard=ebony", "body=koa&fretboard=birdseyeMaple",
                "body=swampAsh&fretboard=blackLimba", "body=koa&fretboard=ebony",
                "body=swampAsh&fretboard=birdseyeMaple",
                "body=mahogany&fretboard=ebony", "body=swampAsh&fretboard=rosewood",
                "body=mahogany&fretboard=birdseyeMaple",
            ]
            let cookie = try await Self.cartCheckedOut(app, guitars, quantity: 4)
            let before = try await shop.store.stockLevels().map(\.inStock)
            let refused = try await app.scriptPost("/checkout/order", form: "", cookie: cookie)
            #expect(refused.status == 422, "\(refused)")
            #expect(refused.text.hasPrefix("An order may take at most 2 "), "\(refused.text)")
            #expect(refused.text.contains("while 12 or fewer are in stock"), "\(refused.text)")
            #expect(try await shop.store.openOrderCount() == 0)
            #expect(try await shop.store.stockLevels().map(\.inStock) == before)
        }
    }

    @Test(
        "a customer's orders over time take at most their share of a scarce wood: 429 naming it; another customer may")
    func oneCustomerCannotSweepThemOverTime() async throws {
        try await TestShop.run(configure: Self.configure) { app, shop in
            let first = try await Self.cartCheckedOut(app, ["body=koa"], quantity: 2)
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: first).status == 204)
            // Another session from the same address: 2 more Koa blanks would make 4, past 3.
            let second = try await Self.cartCheckedOut(app, ["body=koa"], quantity: 2)
            let refused = try await app.scriptPost("/checkout/order", form: "", cookie: second)
            #expect(refused.status == 429, "\(refused)")
            #expect(
                refused.text.contains(
                    "Orders from this network address have taken the most Koa body blanks one customer may"),
                "\(refused.text)")
            #expect(refused.header("Retry-After") != nil)
            #expect(try await shop.store.stock(of: .body(.koa)) == 4)
            // Plentiful woods are not counted: the same address orders mahogany at once.
            let plain = try await Self.cartCheckedOut(app, ["body=mahogany"], quantity: 3)
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: plain).status == 204)
            // Once the window has passed, the refused one goes through.
            try await app.advance(by: .seconds(60))
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: second).status == 204)
            #expect(try await shop.store.stock(of: .body(.koa)) == 2)
        }
    }
}
