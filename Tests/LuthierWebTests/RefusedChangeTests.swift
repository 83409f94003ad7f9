import Foundation
import LuthierDomain
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

/// A change the server refuses because it could not be saved never happens: no page, no stream,
/// no analytics and no store shows it, and trying again (as the refusal says) applies it once.
///
/// Each test keeps a stream of the session open. What a stream did not get is read without
/// waiting: after the refusal a change that is saved is posted, and the stream's next patch must
/// be that change alone, drawn on the state from before the refusal.
@Suite("A refused change never happens")
struct RefusedChangeTests {
    /// A new session whose guitar `form` has chosen, stored, with its stream open past its retry
    /// hint and first patch.
    static func sessionWithStream(_ app: TestApp, choosing form: String) async throws -> (String, EventStreamClient) {
        let cookie = try await app.newSession()
        let chosen = try await app.scriptPost(form: form, cookie: cookie)
        try #require(chosen.status == 204, "\(chosen)")
        let stream = try await app.openEventStream(cookie: cookie)
        _ = try await stream.nextEvent()
        _ = try await stream.nextPatch()
        return (cookie, stream)
    }

    /// Runs `body` on the real workshop (`TestShop`), with sessions stored in `sessions`.
    static func runWithWorkshop(
        sessions: MemorySessionStore, _ body: @Sendable (TestApp) async throws -> Void
    ) async throws {
        let shop = try TestShop()
        try await TestApp.run(
            environment: { clock in
                var environment = shop.environment(clock: clock)
                environment.sessions = sessions.client
                return environment
            }, body)
    }

    @Test("a builder change that could not be saved is shown nowhere and kept nowhere; its retry applies it")
    func builderChange() async throws {
        let sessions = MemorySessionStore()
        try await TestApp.run(environment: { .webTest(clock: $0, sessions: sessions) }) { app in
            let (cookie, stream) = try await Self.sessionWithStream(app, choosing: "body=koa")

            sessions.fail()
            let refused = try await app.scriptPost(form: "color=dusk", cookie: cookie)
            #expect(refused.status == 503)
            #expect(refused.text.contains("could not be saved"))
            #expect(try await app.page(cookie: cookie).checkedValues["color"] == ["natural"])
            #expect(app.liveSession(cookie)?.build.latestState.guitar == Guitar(body: .koa))
            sessions.fail(false)

            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            let (_, next) = try await stream.nextPatch()
            #expect(next.html("guitar-description")?.hasPrefix("Natural Long V with Koa body") == true, "\(next)")
            #expect(sessions.rows.values.map(\.snapshot.guitar) == [Guitar(shape: .longV, body: .koa)])

            // Tried again, as the refusal asked: applied once.
            #expect(try await app.scriptPost(form: "color=dusk", cookie: cookie).status == 204)
            let (_, retried) = try await stream.nextPatch()
            #expect(retried.html("guitar-description")?.hasPrefix("Dusk Long V") == true, "\(retried)")
            #expect(sessions.rows.values.map(\.snapshot.guitar) == [Guitar(shape: .longV, color: .dusk, body: .koa)])
            await stream.close()
        }
    }

    @Test("an add to cart that could not be saved changes no badge, analytics or store; its retry adds one guitar")
    func addToCart() async throws {
        let sessions = MemorySessionStore()
        let analytics = MemoryAnalytics()
        try await TestApp.run(environment: { .webTest(clock: $0, sessions: sessions, analytics: analytics) }) { app in
            let (cookie, stream) = try await Self.sessionWithStream(app, choosing: "shape=longV")

            sessions.fail()
            let refused = try await app.scriptPost("/cart/items", form: "", cookie: cookie)
            #expect(refused.status == 503)
            let builder = try await app.get(cookie: cookie)
            #expect(BuilderPageSnapshot(html: builder.text).badgeCount == "0", "no guitar in the cart")
            #expect(try await CartControllerTests.cartPage(app, cookie: cookie).lineIDs == [])
            sessions.fail(false)

            // The retry: the stream's next patch counts one guitar, and one is stored.
            #expect(try await app.scriptPost("/cart/items", form: "", cookie: cookie).status == 204)
            let (_, added) = try await stream.nextPatch()
            let badge = try #require(added.html("cart-badge"), "\(added)")
            #expect(badge.contains(">1<"), "\(badge)")
            let stored = try #require(sessions.rows.values.first?.snapshot.cart)
            #expect(stored.lines.map(\.quantity) == [1])
            #expect(try await CartControllerTests.cartPage(app, cookie: cookie).lineIDs == [CartControllerTests.longV])

            // Analytics counted the add that happened, not the one refused.
            let recorded = await analytics.until { !$0.isEmpty }
            #expect(recorded)
            #expect(analytics.events.map(\.action) == ["add"])
            await stream.close()
        }
    }

    @Test("a checkout that could not be saved navigates no tab and is not there; its retry makes one")
    func checkout() async throws {
        let sessions = MemorySessionStore()
        try await Self.runWithWorkshop(sessions: sessions) { app in
            let (cookie, stream) = try await Self.sessionWithStream(app, choosing: "shape=longV")

            sessions.fail()
            let refused = try await app.scriptPost("/checkout", form: "", cookie: cookie)
            #expect(refused.status == 503)
            #expect(refused.text.contains("could not be saved"), "\(refused.text)")
            let page = try await app.get("/checkout", cookie: cookie)
            #expect(page.status == 303, "no checkout: back to the builder")
            #expect(app.liveSession(cookie)?.build.latestState.checkout == nil)
            sessions.fail(false)

            // The stream's next event is the marker's patch: no navigation came before it.
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            var next = try await stream.nextEvent()
            // The checkout button's state coming back from "loading" may be sent first.
            while next.event == "patch", (try next.patch()).html("guitar-description") == nil {
                next = try await stream.nextEvent()
            }
            #expect(next.event == "patch", "\(next)")
            #expect(try next.patch().html("guitar-description")?.hasPrefix("Sky Long V") == true)

            // Tried again: a checkout, saved, and every tab goes to it.
            #expect(try await app.scriptPost("/checkout", form: "", cookie: cookie).status == 204)
            var navigation = try await stream.nextEvent()
            while navigation.event != "navigate" { navigation = try await stream.nextEvent() }
            #expect(navigation.data == ["/checkout"])
            #expect(try await app.get("/checkout", cookie: cookie).status == 200)
            #expect(sessions.rows.values.first?.snapshot.checkout != nil)
            await stream.close()
        }
    }

    @Test("a shipping choice that could not be saved leaves the checkout as it was")
    func shippingChoice() async throws {
        let sessions = MemorySessionStore()
        try await Self.runWithWorkshop(sessions: sessions) { app in
            let cookie = try await CheckoutControllerTests.checkedOut(app)
            sessions.fail()
            let refused = try await app.scriptPost("/checkout/shipping", form: "option=express", cookie: cookie)
            #expect(refused.status == 503)
            sessions.fail(false)
            let page = try await CheckoutControllerTests.checkoutPage(app, cookie: cookie)
            #expect(page.snapshot.checkedValues["option"] == ["pickup"])
            #expect(try await app.scriptPost("/checkout/shipping", form: "option=ground", cookie: cookie).status == 204)
            let after = try await CheckoutControllerTests.checkoutPage(app, cookie: cookie)
            #expect(after.snapshot.checkedValues["option"] == ["ground"])
        }
    }
}
