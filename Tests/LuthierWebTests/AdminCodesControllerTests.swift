import LuthierDomain
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

/// `/admin/codes` over HTTP: adding and expiring codes, their refusals, and every cart judging
/// codes by the change at once.
@Suite("AdminCodesController over HTTP")
struct AdminCodesControllerTests {
    static let bearer = AdminStockControllerTests.bearer

    @Test("a code added by the admin works in a cart at once; expired, it stops working there too")
    func addAndExpireReachTheCarts() async throws {
        let log = LogCapture()
        try await TestShop.run(configure: AdminControllerTests.configure, log: log) { app, shop in
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost("/cart/items", form: "", cookie: cookie).status == 204)
            #expect(try await app.scriptPost("/cart/discount", form: "code=launch", cookie: cookie).status == 422)

            let added = try await app.post(
                "/admin/codes", form: "code=LAUNCH&percent=20&expires=", headers: Self.bearer)
            #expect(added.status == 303, "\(added)")
            #expect(added.header("Location") == "/admin/codes")
            #expect(try await shop.store.discountCodes() == [DiscountCode(code: "LAUNCH", percent: 20)])
            #expect(try await app.scriptPost("/cart/discount", form: "code=launch", cookie: cookie).status == 204)
            #expect(try await app.get("/cart", cookie: cookie).text.contains("LAUNCH (20 % off)"))
            let page = try await app.get("/admin/codes", headers: Self.bearer)
            #expect(page.text.contains("<th scope=\"row\">LAUNCH</th>"))
            #expect(page.text.contains("action=\"/admin/codes/LAUNCH/expire\""))

            let expired = try await app.post("/admin/codes/launch/expire", form: "", headers: Self.bearer)
            #expect(expired.status == 303)
            // The cart that had it applied no longer takes it off, and nobody can apply it again.
            #expect(!(try await app.get("/cart", cookie: cookie).text.contains("LAUNCH (20 % off)")))
            let again = try await app.scriptPost("/cart/discount", form: "code=LAUNCH", cookie: cookie)
            #expect(again.status == 422)
            #expect(again.text.contains("expired"))
            #expect(
                !(try await app.get("/admin/codes", headers: Self.bearer).text.contains("/admin/codes/LAUNCH/expire")))

            let lines = log.all.filter { $0.contains("Admin added a discount code") || $0.contains("Admin expired") }
            #expect(lines.count == 2, "\(lines)")
        }
    }

    @Test(
        "a wrong code is refused naming the field, and nothing is added",
        arguments: [
            ("code=&percent=10", 422, "Field 'code'"),
            ("code=TWO+WORDS&percent=10", 422, "Field 'code'"),
            ("code=OK&percent=0", 422, "Field 'percent'"),
            ("code=OK&percent=101", 422, "Field 'percent'"),
            ("code=OK&percent=10&expires=2027-02-30", 422, "Field 'expires'"),
            ("code=OK&percent=10&expires=2020-01-01", 422, "Field 'expires' must be a day after today"),
            ("code=OK&percent=10&note=x", 422, "Unknown field 'note'"),
        ])
    func refusals(form: String, status: Int, sentence: String) async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            let response = try await app.post("/admin/codes", form: form, headers: Self.bearer)
            #expect(response.status == status, "\(response)")
            #expect(response.text.contains(sentence), "\(response.text)")
            #expect(try await shop.store.discountCodes().isEmpty)
        }
    }

    @Test("a code is never added twice, whatever its case; an unknown or expired code cannot be expired")
    func conflicts() async throws {
        try await TestShop.run(configure: AdminControllerTests.configure) { app, shop in
            #expect(
                try await app.post("/admin/codes", form: "code=Band10&percent=10", headers: Self.bearer).status == 303)
            let twice = try await app.post("/admin/codes", form: "code=BAND10&percent=50", headers: Self.bearer)
            #expect(twice.status == 409)
            #expect(twice.text.contains("Band10 exists already"))
            #expect(try await shop.store.discountCodes().map(\.percent) == [10])
            #expect(try await app.post("/admin/codes/NOPE/expire", form: "", headers: Self.bearer).status == 404)
            #expect(try await app.post("/admin/codes/band10/expire", form: "", headers: Self.bearer).status == 303)
            #expect(try await app.post("/admin/codes/band10/expire", form: "", headers: Self.bearer).status == 409)
            #expect(try await app.post("/admin/codes/band10/expire", form: "").status == 401)
        }
    }
}
