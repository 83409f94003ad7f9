import ServerMachinery
import TestSupport
import Testing

@testable import LuthierWeb

/// Orders are limited per session and per client address over time: a script cannot sweep up
/// the scarce woods in seconds, and a refused order costs nothing.
@Suite("Order limits over HTTP")
struct OrderLimitsTests {
    static func configure(_ configuration: inout LuthierConfiguration) {
        configuration.orderLimitPerSession = RateLimiter.Rule(limit: 1, window: .seconds(60))
        configuration.orderLimitPerClient = RateLimiter.Rule(limit: 2, window: .seconds(60))
    }

    @Test("past the session's and the client's limits: 429 with Retry-After and a sentence; nothing ordered")
    func limits() async throws {
        try await TestShop.run(configure: Self.configure) { app, shop in
            let first = try await CheckoutControllerTests.checkedOut(app)
            _ = try await CheckoutControllerTests.order(app, cookie: first)
            // The same order posted again is the same order, and counts nothing.
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: first).status == 204)

            // A second order from the same session within the minute.
            #expect(try await app.scriptPost("/checkout/dismiss", form: "", cookie: first).status == 204)
            #expect(try await app.scriptPost("/checkout", form: "", cookie: first).status == 204)
            let again = try await app.scriptPost("/checkout/order", form: "", cookie: first)
            #expect(again.status == 429, "\(again)")
            #expect(again.text.contains("Too many orders from this browser: at most 1 in 60 seconds"), "\(again.text)")
            #expect(again.header("Retry-After") == "60")

            // Another session from the same address: the second order of the address is fine...
            let second = try await CheckoutControllerTests.checkedOut(app)
            _ = try await CheckoutControllerTests.order(app, cookie: second)
            // ...the third is not.
            let third = try await CheckoutControllerTests.checkedOut(app)
            let refused = try await app.scriptPost("/checkout/order", form: "", cookie: third)
            #expect(refused.status == 429, "\(refused)")
            #expect(refused.text.contains("from this network address"), "\(refused.text)")
            #expect(try CheckoutControllerTests.model(app, cookie: third).latestState.order == nil)
            let orders = try await shop.store.recentOrders(limit: 10)
            #expect(orders.count == 2, "\(orders)")

            // A minute later both are welcome again.
            try await app.advance(by: .seconds(60))
            _ = try await CheckoutControllerTests.order(app, cookie: third)
            _ = try await CheckoutControllerTests.order(app, cookie: first)
        }
    }

    @Test("one order posted from several tabs at once is answered 204 in each and uses one order of the limits")
    func oneOrderPostedAtOnceCountsOnce() async throws {
        let configure: @Sendable (inout LuthierConfiguration) -> Void = {
            $0.orderLimitPerSession = RateLimiter.Rule(limit: 2, window: .seconds(60))
            $0.orderLimitPerClient = RateLimiter.Rule(limit: 2, window: .seconds(60))
        }
        try await TestShop.run(ordersGated: true, configure: configure) { app, shop in
            let cookie = try await CheckoutControllerTests.checkedOut(app)
            // The first post is held at the workshop; seven more of the same order come meanwhile
            // (a double click, tabs), each waiting for the first.
            let posts = (0..<8).map { _ in
                Task { try await app.scriptPost("/checkout/order", form: "", cookie: cookie) }
            }
            #expect(await shop.orderGate.until(waiting: 1))
            #expect(await within { _ = await app.services.requests.untilCurrent { $0 == 8 } })
            shop.orderGate.open()
            var statuses: [Int] = []
            for post in posts { statuses.append(try await post.value.status) }
            #expect(statuses == Array(repeating: 204, count: 8))
            #expect(try await shop.store.recentOrders(limit: 10).count == 1)

            // The session and the address have used one order each: a second is welcome, a
            // third is not.
            #expect(try await app.scriptPost("/checkout/dismiss", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout/dismiss", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: cookie).status == 429)
        }
    }

    @Test("an IPv6 host rotating through its /64 behind a trusted proxy is one client; another /64 is another")
    func ipv6HostRotatingThroughItsPrefix() async throws {
        let configure: @Sendable (inout LuthierConfiguration) -> Void = {
            Self.configure(&$0)
            $0.trustProxy = true
        }
        try await TestShop.run(configure: configure) { app, _ in
            var statuses: [Int] = []
            for address in ["2001:db8:1:2::a", "2001:db8:1:2:ffff::b", "2001:db8:1:2:1234:5678:9abc:def0"] {
                statuses.append(try await Self.order(app, from: address))
            }
            // The third address of the same /64 is the same client, past its limit of two.
            #expect(statuses == [204, 204, 429])
            // Another /64 is another client.
            let elsewhere = try await Self.order(app, from: "2001:db8:1:3::a")
            #expect(elsewhere == 204)
        }
    }

    /// Checks out in a new session and orders through a trusted proxy that forwarded for `address`.
    static func order(_ app: TestApp, from address: String) async throws -> Int {
        let cookie = try await CheckoutControllerTests.checkedOut(app)
        let forwarded = [("Forwarded", "for=\"[\(address)]:4711\";proto=http")]
        return try await app.scriptPost("/checkout/order", form: "", cookie: cookie, headers: forwarded).status
    }

    @Test("an order refused for another reason (unavailable wood, 409) does not use up the limit")
    func refusedOrdersAreGivenBack() async throws {
        let configure: (inout LuthierConfiguration) -> Void = {
            $0.orderLimitPerClient = RateLimiter.Rule(limit: 3, window: .seconds(60))
        }
        try await TestShop.run(configure: configure) { app, _ in
            // The workshop has two Black Limba fretboards: two orders take them.
            for _ in 0..<2 {
                let cookie = try await CheckoutControllerTests.checkedOut(app, guitar: "fretboard=blackLimba")
                _ = try await CheckoutControllerTests.order(app, cookie: cookie)
            }
            let late = try await CheckoutControllerTests.checkedOut(app, guitar: "fretboard=blackLimba")
            let conflict = try await app.scriptPost("/checkout/order", form: "", cookie: late)
            #expect(conflict.status == 409, "\(conflict)")
            // The third of three is still the address's to use.
            let standard = try await CheckoutControllerTests.checkedOut(app, guitar: "")
            _ = try await CheckoutControllerTests.order(app, cookie: standard)
            let fourth = try await CheckoutControllerTests.checkedOut(app, guitar: "")
            #expect(try await app.scriptPost("/checkout/order", form: "", cookie: fourth).status == 429)
        }
    }
}
