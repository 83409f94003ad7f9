import Testing

@testable import LuthierWeb

/// An order gives the session a new id: a session id planted in a customer's browser (or seen
/// over their shoulder) stops working once they order, and their own tabs carry on.
@Suite("Session rotation over HTTP")
struct SessionRotationTests {
    @Test("a planted session id stops working once an order is placed; the customer keeps everything")
    func plantedIDStopsWorking() async throws {
        try await TestShop.run { app, _ in
            // The attacker gets an id from the shop and plants it in the customer's browser.
            let planted = try await app.newSession()
            let tab = try await app.openEventStream(cookie: planted)
            _ = try await tab.nextEvent()
            _ = try await tab.nextPatch()

            let cookie = try await CheckoutControllerTests.checkedOut(app, planted: planted)
            let order = try await app.request(
                .POST, "/checkout/order", headers: [("Cookie", "\(TestApp.cookieName)=\(cookie)")], body: [],
                followingRotations: false)
            #expect(order.status == 303)
            let renewed = try #require(SetCookie(order))
            #expect(renewed.value != planted)
            #expect(renewed.isWellFormedSessionID)
            #expect(renewed.attributes["httponly"] != nil)

            // The customer's new id shows the order.
            let page = try await CheckoutControllerTests.checkoutPage(app, cookie: renewed.value)
            let number = try #require(page.orderNumber)
            #expect(try await app.get("/orders/\(number)", cookie: renewed.value).status == 200)

            // A post the browser sent before the answer arrived (a double click, another tab) still
            // lands in the session for a few seconds; its answer carries no cookie (the new id goes
            // with the order's answer alone, never to whoever else holds the old one).
            let old = [("Cookie", "\(TestApp.cookieName)=\(planted)"), ("X-Requested-With", "fetch")]
            let late = try await app.request(
                .POST, "/checkout/shipping", headers: old + [("Content-Type", TestApp.formType)],
                body: Array("option=ground".utf8), followingRotations: false)
            #expect(late.status == 204, "\(late)")
            #expect(SetCookie(late) == nil)

            // After the grace the planted id finds nothing of it: not the checkout, not the order.
            try await app.advance(by: SessionRegistry.rotationGrace)
            let checkout = try await app.request(.GET, "/checkout", headers: old, followingRotations: false)
            #expect(checkout.status == 303)
            #expect(checkout.header("Location") == "/")
            let orderPage = try await app.request(.GET, "/orders/\(number)", headers: old, followingRotations: false)
            #expect(orderPage.status == 404)
            #expect(app.services.registry.live(try #require(SessionID(cookieValue: planted))) == nil)

            // The tab that was open carries on with the same session until the heartbeat after the
            // grace ends its stream (`replacedIDHandsOutNothing`); its browser then comes back with
            // the new id.
            #expect(try await app.scriptPost("/checkout/dismiss", form: "", cookie: renewed.value).status == 204)
            var navigated = false
            while !navigated {
                let event = try await tab.nextEvent()
                navigated = event.event == "navigate" && event.data == ["/"]
            }
            await tab.close()
        }
    }
    /// A browser that still holds the old id once its grace is over (the order's answer never
    /// reached it, or the id was planted there) is told to reload, and the reload gives it a fresh
    /// id: before, the old id was taken up again as a new session, whose every save met the old
    /// one's tombstone, and every post was refused with "reload the page" for good.
    @Test("an id an order replaced is refused once its grace is over, and a page gives the browser a fresh one")
    func replacedIDAfterItsGrace() async throws {
        try await TestShop.run { app, _ in
            let old = try await CheckoutControllerTests.checkedOut(app)
            let renewed = try await Self.order(app, cookie: old)
            try await app.advance(by: SessionRegistry.rotationGrace)
            let oldID = try #require(SessionID(cookieValue: old))
            let oldCookie = [("Cookie", "\(TestApp.cookieName)=\(old)"), ("X-Requested-With", "fetch")]

            let post = try await app.request(
                .POST, "/build", headers: oldCookie + [("Content-Type", TestApp.formType)],
                body: Array("color=dusk".utf8), followingRotations: false)
            #expect(post.status == 409, "\(post)")
            #expect(post.text.contains("replaced after an order"), "\(post.text)")
            #expect(SetCookie(post) == nil)
            #expect(app.services.registry.live(oldID) == nil, "the old id was taken up as a session")

            let stream = try await app.openEventStream(cookie: nil, headers: oldCookie, followingRotations: false)
            #expect(stream.head.status.code == 409)
            await stream.close()
            #expect(app.services.registry.live(oldID) == nil, "the old id was taken up as a session")

            let reload = try await app.request(.GET, "/", headers: oldCookie, followingRotations: false)
            #expect(reload.status == 200)
            let fresh = try #require(SetCookie(reload), "the reload kept the dead id").value
            #expect(fresh != old && fresh != renewed)
            let retried = try await app.request(
                .POST, "/build",
                headers: [
                    ("Cookie", "\(TestApp.cookieName)=\(fresh)"), ("X-Requested-With", "fetch"),
                    ("Content-Type", TestApp.formType),
                ],
                body: Array("color=dusk".utf8), followingRotations: false)
            #expect(retried.status == 204, "\(retried)")

            // The customer's own id is untouched by all this.
            #expect(try await app.get("/checkout", cookie: renewed).status == 200)
        }
    }
    /// The grace is for a post the customer's browser sent before the order's answer reached it:
    /// it lands in the session. It must not hand the session to whoever else holds the old id
    /// (planted there, or seen): an answer in the grace carries no cookie, a page or a stream asked
    /// for with the old id shows nothing of the session, and the streams opened with it end, so
    /// that the customer's tabs reconnect with the new one. Before, someone polling with the old
    /// id got the new one in the first answer after the order, and a stream kept open with the old
    /// id went on showing everything the customer did.
    @Test("an id an order replaced hands nobody the session: no new cookie, no page, no stream")
    func replacedIDHandsOutNothing() async throws {
        try await TestShop.run { app, _ in
            let old = try await CheckoutControllerTests.checkedOut(app)
            let oldCookie = [("Cookie", "\(TestApp.cookieName)=\(old)"), ("X-Requested-With", "fetch")]
            // Someone else holding the same id follows the session.
            let watcher = try await app.openEventStream(cookie: nil, headers: oldCookie, followingRotations: false)
            #expect(watcher.head.status.code == 200)
            #expect(await app.streams { $0.open == 1 })

            let renewed = try await Self.order(app, cookie: old)

            // In the grace, a post sent with the old id lands in the session, and its answer
            // carries no cookie.
            let late = try await app.request(
                .POST, "/build", headers: oldCookie + [("Content-Type", TestApp.formType)],
                body: Array("color=dusk".utf8), followingRotations: false)
            #expect(late.status == 204, "\(late)")
            #expect(SetCookie(late) == nil, "the new id was handed to a holder of the old one")
            let customers = try await app.request(
                .GET, "/", headers: [("Cookie", "\(TestApp.cookieName)=\(renewed)")], followingRotations: false)
            #expect(BuilderPageSnapshot(html: customers.text).checkedValues["color"] == ["dusk"])

            // A page asked for with the old id is the blank builder, and sets no cookie.
            let page = try await app.request(.GET, "/", headers: oldCookie, followingRotations: false)
            #expect(page.status == 200)
            #expect(SetCookie(page) == nil)
            #expect(BuilderPageSnapshot(html: page.text).checkedValues["color"] != ["dusk"])

            // A stream asked for with the old id is refused.
            let stream = try await app.openEventStream(cookie: nil, headers: oldCookie, followingRotations: false)
            #expect(stream.head.status.code == 409)
            await stream.close()

            // Once the grace is over, at the next heartbeat (every 15 s here), the stream opened
            // with the old id ends; the customer's own tabs come back with the new one.
            try await app.advance(by: .seconds(15))
            while try await watcher.next() != nil {}
            await watcher.close()
            #expect(await app.streams { $0.open == 0 })
        }
    }

    /// The grace lets the customer's own late posts land, and a repeat of the order (a double
    /// click) is answered as placed. Another order placed with the old id would give the session a
    /// newer id still, in that order's answer: whoever holds the old id (planted there, or seen)
    /// could build, check out and order within the grace and so take the session, while the
    /// customer's id stopped working. Before, that order was placed and its answer carried the
    /// newest id.
    @Test("an id an order replaced can repeat that order in its grace, never place another")
    func replacedIDPlacesNoOtherOrder() async throws {
        try await TestShop.run { app, shop in
            let old = try await CheckoutControllerTests.checkedOut(app)
            let renewed = try await Self.order(app, cookie: old)
            let oldCookie = [("Cookie", "\(TestApp.cookieName)=\(old)"), ("X-Requested-With", "fetch")]
            let ordered = try await shop.store.recentOrders(limit: 10).count

            // The double click: answered as placed, with no cookie and no second order.
            let again = try await app.request(.POST, "/checkout/order", headers: oldCookie, followingRotations: false)
            #expect(again.status == 204, "\(again)")
            #expect(SetCookie(again) == nil)

            // A new checkout made with the old id, within the grace, is not ordered.
            for (path, form) in [("/checkout/dismiss", ""), ("/build", "color=dusk"), ("/checkout", "")] {
                let post = try await app.request(
                    .POST, path, headers: oldCookie + [("Content-Type", TestApp.formType)], body: Array(form.utf8),
                    followingRotations: false)
                try #require(post.status == 204, "\(path): \(post)")
            }
            let other = try await app.request(.POST, "/checkout/order", headers: oldCookie, followingRotations: false)
            #expect(other.status == 409, "\(other)")
            #expect(other.text.contains("replaced after an order"), "\(other.text)")
            #expect(SetCookie(other) == nil, "the session's newest id was handed to a holder of the old one")
            #expect(try await shop.store.recentOrders(limit: 10).count == ordered)

            // The customer's id still works, and orders the checkout.
            let customers = try await app.request(
                .POST, "/checkout/order", headers: [("Cookie", "\(TestApp.cookieName)=\(renewed)")], body: [],
                followingRotations: false)
            #expect(customers.status == 303, "\(customers)")
            #expect(try await shop.store.recentOrders(limit: 10).count == ordered + 1)
        }
    }

    /// Places the checked-out order of the session `cookie` names, sending that cookie as it is,
    /// and returns the new id the order's answer gives it.
    static func order(_ app: TestApp, cookie: String) async throws -> String {
        let order = try await app.request(
            .POST, "/checkout/order", headers: [("Cookie", "\(TestApp.cookieName)=\(cookie)")], body: [],
            followingRotations: false)
        #expect(order.status == 303)
        return try #require(SetCookie(order)).value
    }
}
