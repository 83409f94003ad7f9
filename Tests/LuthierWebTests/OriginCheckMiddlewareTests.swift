import ServerMachinery
import Testing

@testable import LuthierWeb

@Suite("OriginCheckMiddleware over HTTP")
struct OriginCheckMiddlewareTests {
    static let refusal = "Posts from other sites are refused"

    /// Headers a browser on another site would send, each of which must be refused.
    static let crossSite: [[(name: String, value: String)]] = [
        [("Origin", "http://evil.example")],
        [("Origin", "null")],
        [("Origin", "http://127.0.0.1:1")],
        [("Sec-Fetch-Site", "cross-site")],
        [("Sec-Fetch-Site", "same-site")],
        [("Sec-Fetch-Site", "cross-site"), ("Origin", "http://evil.example")],
    ]

    @Test("a cross-site post is refused with 403 and changes nothing", arguments: 0..<crossSite.count)
    func crossSitePost(_ index: Int) async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            for path in ["/build", "/build/reset"] {
                let form = path == "/build" ? "shape=sharpV" : ""
                let response = try await app.post(path, form: form, cookie: cookie, headers: Self.crossSite[index])
                #expect(response.status == 403, "\(path) \(Self.crossSite[index])")
                #expect(response.text.contains(Self.refusal))
                #expect(response.headers["Set-Cookie"].isEmpty)
            }
            // Set state, then try to reset it cross-site: it must survive.
            #expect(try await app.scriptPost(form: "color=dusk", cookie: cookie).status == 204)
            let reset = try await app.post("/build/reset", form: "", cookie: cookie, headers: Self.crossSite[index])
            #expect(reset.status == 403)
            let page = try await app.page(cookie: cookie)
            #expect(page.checkedValues["shape"] == ["casual"])
            #expect(page.checkedValues["color"] == ["dusk"])
        }
    }

    @Test("a cross-site post without a session does not create one")
    func crossSiteCreatesNoSession() async throws {
        try await TestApp.run { app in
            let response = try await app.post(form: "shape=longV", headers: [("Origin", "http://evil.example")])
            #expect(response.status == 403)
            #expect(app.services.registry.count == 0)
        }
    }

    @Test("a browser's refusal page is HTML")
    func refusalPage() async throws {
        try await TestApp.run { app in
            let response = try await app.post(
                form: "shape=longV",
                headers: [("Origin", "http://evil.example"), ("Accept", "text/html")]
            )
            #expect(response.status == 403)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.text.contains("data-status=\"403\""))
        }
    }

    @Test("same-origin posts are accepted: matching Origin and Host, Sec-Fetch-Site same-origin or none, or neither")
    func sameOriginPost() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let host = "127.0.0.1:\(app.port)"
            let accepted: [(form: String, headers: [(name: String, value: String)], shape: String)] = [
                ("shape=longV", [("Host", host), ("Origin", "http://\(host)")], "longV"),
                ("shape=chunky", [("Sec-Fetch-Site", "same-origin")], "chunky"),
                ("shape=longV", [("Sec-Fetch-Site", "none")], "longV"),
                (
                    "shape=sharpV",
                    [("Host", host), ("Origin", "http://\(host)"), ("Sec-Fetch-Site", "same-origin")],
                    "sharpV"
                ),
                ("shape=casual", [], "casual"),
            ]
            for post in accepted {
                let response = try await app.scriptPost(form: post.form, cookie: cookie, headers: post.headers)
                #expect(response.status == 204, "\(post.headers)")
                #expect(try await app.page(cookie: cookie).checkedValues["shape"] == [post.shape])
            }
        }
    }

    @Test("pages and event streams are not posts: a cross-site GET is served")
    func crossSiteGet() async throws {
        try await TestApp.run { app in
            let response = try await app.get(headers: [
                ("Origin", "http://evil.example"), ("Sec-Fetch-Site", "cross-site"),
            ])
            #expect(response.status == 200)
        }
    }
}
