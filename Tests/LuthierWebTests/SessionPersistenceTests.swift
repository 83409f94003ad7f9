import Foundation
import LuthierDomain
import LuthierFeatures
import LuthierLive
import TestSupport
import Testing

@testable import LuthierWeb
@testable import SQLMachinery

/// Sessions survive a restart: the application is run twice on the same SQLite file, and the
/// second finds the first's build, cart and checkout by the same cookie.
@Suite("Session persistence across restarts")
struct SessionPersistenceTests {
    static func temporaryDatabase() -> String {
        FileManager.default.temporaryDirectory
            .appendingPathComponent("luthier-restart-\(UUID().uuidString).sqlite").path
    }

    static func remove(_ path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    }

    @Test("restarting on the same database finds the session's build, cart, code and checkout intact")
    func restart() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }

        let firstShop = try TestShop(path: path)
        let cookie = try await TestApp.run(
            configure: CartControllerTests.configure,
            environment: firstShop.environment(clock:)
        ) { app in
            let cookie = try await app.newSession()
            try await CartControllerTests.add(app, "shape=longV&body=koa", cookie: cookie)
            try await CartControllerTests.add(app, "", cookie: cookie)
            try await CartControllerTests.add(app, "shape=sharpV&color=sky", cookie: cookie)
            #expect(try await app.scriptPost("/cart/discount", form: "code=band10", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/checkout", form: "", cookie: cookie).status == 204)
            #expect(
                try await app.scriptPost("/checkout/shipping", form: "option=express", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout/leave", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/checkout", form: "", cookie: cookie).status == 204)
            #expect(
                try await app.scriptPost("/checkout/shipping", form: "option=ground", cookie: cookie).status == 204)
            return cookie
        }

        let secondShop = try TestShop(path: path)
        // Ordering gives the session a new id: the browser keeps the newest cookie.
        let newest = try await TestApp.run(
            configure: CartControllerTests.configure,
            environment: secondShop.environment(clock:)
        ) { app in
            #expect(app.services.registry.count == 0)
            let builder = try await app.get(cookie: cookie)
            #expect(builder.status == 200)
            #expect(builder.headers["Set-Cookie"].isEmpty, "the same session, not a new one")
            let page = BuilderPageSnapshot(html: builder.text)
            #expect(page.checkedValues["shape"] == ["sharpV"])
            #expect(page.checkedValues["color"] == ["sky"])
            #expect(page.badgeCount == "3")

            let cart = try await CartControllerTests.cartPage(app, cookie: cookie)
            #expect(
                cart.lineIDs == [
                    CartLine.id(for: Guitar(shape: .longV, body: .koa)),
                    CartLine.id(for: Guitar(shape: .sharpV, color: .sky, body: .koa)),
                ])
            #expect(cart.text("cart-discount-code") == "BAND10 (10 % off)")

            let checkout = try await CheckoutControllerTests.checkoutPage(app, cookie: cookie)
            #expect(checkout.html.contains("<h1>Your guitars</h1>"))
            #expect(checkout.snapshot.checkedValues["option"] == ["ground"])

            // And it carries on: ordering works and empties the cart.
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 204)
            #expect(try await CartControllerTests.cartPage(app, cookie: cookie).lineIDs == [])
            #expect(app.jar.current(of: cookie) != cookie)
            return app.jar.current(of: cookie)
        }

        // A third start still knows the order was placed, and does not take it out of the cart twice.
        let thirdShop = try TestShop(path: path)
        try await TestApp.run(
            configure: CartControllerTests.configure,
            environment: thirdShop.environment(clock:)
        ) { app in
            let checkout = try await CheckoutControllerTests.checkoutPage(app, cookie: newest)
            #expect(checkout.html.contains("Congratulations!"))
            #expect(try await CartControllerTests.cartPage(app, cookie: newest).lineIDs == [])
            // The id from before the order works no more.
            let old = try await app.request(
                .GET, "/checkout", headers: [("Cookie", "\(TestApp.cookieName)=\(cookie)")], followingRotations: false)
            #expect(old.status == 303)
        }
    }

    @Test("a session that cannot be saved answers 503 instead of saying yes")
    func saveFailure() async throws {
        let sessions = MemorySessionStore()
        try await TestApp.run(environment: { .webTest(clock: $0, sessions: sessions) }) { app in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            sessions.fail()
            let refused = try await app.scriptPost(form: "shape=sharpV", cookie: cookie)
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "5")
            #expect(refused.text.contains("could not be saved"))
            sessions.fail(false)
        }
    }

    @Test("a session is stored only once it holds something; one that held something is stored from then on")
    func storedOnlyOnceItHoldsSomething() async throws {
        let sessions = MemorySessionStore()
        try await TestApp.run(environment: { .webTest(clock: $0, sessions: sessions) }) { app in
            // Cookie-less posts that leave the standard guitar as it is: answered, nothing stored.
            for _ in 0..<20 {
                #expect(
                    try await app.scriptPost(form: "color=\(Guitar.standard.color.rawValue)", cookie: nil).status == 204
                )
            }
            #expect(sessions.rows.isEmpty)
            #expect(sessions.saves == 0)

            let cookie = try await app.newSession()
            #expect(
                try await app.scriptPost(form: "color=\(Guitar.standard.color.rawValue)", cookie: cookie).status == 204)
            #expect(sessions.rows.isEmpty)
            // A choice of its own: stored.
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            #expect(sessions.rows.count == 1)
            #expect(sessions.rows.values.first?.snapshot.guitar.color == .sky)
            // Back to the standard guitar: stored too, or a restart would bring the sky back.
            let standard = "color=\(Guitar.standard.color.rawValue)"
            #expect(try await app.scriptPost(form: standard, cookie: cookie).status == 204)
            #expect(sessions.rows.values.first?.snapshot.guitar == .standard)
        }
    }

    @Test("stored sessions unused past the retention are deleted by the session service on its timer")
    func expiry() async throws {
        let path = Self.temporaryDatabase()
        defer { Self.remove(path) }
        let store = try WorkshopStore(path: path)
        let old = SessionSnapshot(orderKey: "k1", analyticsKey: "a1", revision: 1)
        #expect(try await SessionStore.live(store: store).save("old-key", 0, old) == .saved)
        let (swept, sweeps) = AsyncStream<Int>.makeStream()
        // The live environment's `now` is in 2027, long after the row was written.
        try await TestApp.run(
            configure: {
                $0.sessionRetention = .seconds(24 * 3_600)
                $0.sessionExpiryInterval = .seconds(3_600)
            },
            environment: { clock in
                var environment = LuthierEnvironment.webTest(clock: clock)
                environment.now = { Date().addingTimeInterval(2 * 24 * 3_600) }
                environment.sessions = .live(store: store)
                // The sweep tells each deletion it has made (nothing polls the database).
                let deleteUnused = environment.sessions.deleteUnused
                environment.sessions.deleteUnused = { before, leftoverBefore in
                    let deleted = try await deleteUnused(before, leftoverBefore)
                    sweeps.yield(deleted)
                    return deleted
                }
                return environment
            }
        ) { app in
            #expect(await firstValue(of: swept) { $0 == 1 })
            let stored = try await SessionStore.live(store: store).load("old-key")
            #expect(stored == nil)
        }
    }
}
