import TestSupport
import Testing

@testable import LuthierWeb

/// Every kind of refusal says what was wrong in words, and never shows the server's insides.
@Suite("Error responses over HTTP")
struct ErrorResponseTests {
    /// What would betray internals: source files, build paths, type names, traces.
    static let internals = [
        ".swift", "Sources/", "/work/", "/root/", "/home/", ".build", "Backtrace", "Thread ", "Fatal error",
        "Optional(", "LuthierWeb.", "LuthierFeatures.", "LuthierDomain.", "HummingbirdCore", "NIOCore",
    ]

    @Test("refusals of every kind carry a status, a readable message and no internals, as text or as a page")
    func noInternals() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let html = [("Accept", "text/html")]
            var responses: [(String, TestHTTPResponse)] = []
            responses.append(("unknown route", try await app.get("/no/such/page")))
            responses.append(("unknown route, page", try await app.get("/no/such/page", headers: html)))
            responses.append(("bad value", try await app.post("/build", form: "color=plaid", cookie: cookie)))
            responses.append(
                ("bad value, page", try await app.post("/build", form: "color=plaid", cookie: cookie, headers: html)))
            responses.append(
                ("unknown field", try await app.post("/build", form: "colour=sky&x=%FF", cookie: cookie)))
            responses.append(
                (
                    "wrong type",
                    try await app.post("/build", form: "{}", cookie: cookie, contentType: "application/json")
                ))
            responses.append(
                (
                    "too large",
                    try await app.post("/build", form: String(repeating: "a", count: 64 * 1024), cookie: cookie)
                ))
            responses.append(
                (
                    "cross-site",
                    try await app.post("/build", form: "color=sky", headers: [("Origin", "https://evil.example")])
                ))
            responses.append(("no checkout", try await app.post("/checkout/order", form: "", cookie: cookie)))
            responses.append(
                ("unknown line", try await app.post("/cart/lines/nope/increment", form: "", cookie: cookie)))
            responses.append(
                ("bad line action", try await app.post("/cart/lines/nope/explode", form: "", cookie: cookie)))
            responses.append(("unknown order", try await app.get("/orders/999999")))
            responses.append(("no stream session", try await app.get("/events")))
            responses.append(("traversal", try await app.get("/../Package.swift")))
            responses.append(("encoded traversal", try await app.get("/%2e%2e/Sources/luthier/Serve.swift")))
            for (name, response) in responses {
                // A 503 (here: the test's workshop, which fails every call) must say when to retry.
                let refusal = (400..<500).contains(response.status)
                let unavailable = response.status == 503 && response.header("retry-after") != nil
                #expect(refusal || unavailable, "\(name): \(response)")
                for marker in Self.internals {
                    #expect(!response.text.contains(marker), "\(name) shows \(marker): \(response)")
                }
            }
            // The ones a customer's form can cause say what is allowed.
            let badValue = try #require(responses.first { $0.0 == "bad value" }?.1)
            #expect(badValue.status == 422)
            #expect(badValue.text.contains("color"))
        }
    }

    @Test("an address or a method no route takes gets the shop's own refusal, with its headers")
    func refusalsAtTheRoutersEdge() async throws {
        try await TestApp.run { app in
            let page = try await app.get("/no/such/page", headers: [("Accept", "text/html")])
            #expect(page.status == 404)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains("There is no page at this address"))
            #expect(page.text.contains("Back to the builder"), "the page leads back to the shop")

            let text = try await app.get("/no/such/page")
            #expect(text.status == 404)
            #expect(text.header("Content-Type") == "text/plain; charset=utf-8")

            // A path the shop has, with a method it does not take: 405 and what it does take.
            let wrongMethod = try await app.request(.DELETE, "/cart")
            #expect(wrongMethod.status == 405, "\(wrongMethod)")
            #expect(wrongMethod.header("Allow") == "GET, HEAD")
            #expect(wrongMethod.text.contains("This address does not take DELETE; it takes GET, HEAD."))
            let getOnAPost = try await app.get("/cart/clear")
            #expect(getOnAPost.status == 405, "\(getOnAPost)")
            #expect(getOnAPost.header("Allow") == "POST")
            let withCapture = try await app.request(.PUT, "/cart/lines/some-line/increment")
            #expect(withCapture.status == 405)
            #expect(withCapture.header("Allow") == "POST")

            for response in [page, text, wrongMethod, getOnAPost] {
                #expect(response.header("Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
                #expect(response.header("X-Content-Type-Options") == "nosniff")
                #expect(response.header("Referrer-Policy") == "same-origin")
            }
        }
    }

    @Test("HEAD is answered wherever GET is, with GET's status and headers and no body")
    func headWhereverGet() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            for path in ["/", "/healthz", "/cart", "/kiosk", "/styles.css"] {
                let get = try await app.get(path, cookie: cookie)
                let head = try await app.request(.HEAD, path, headers: [("Cookie", "luthier_session=\(cookie)")])
                #expect(head.status == 200, "HEAD \(path): \(head)")
                #expect(head.status == get.status, "HEAD \(path)")
                #expect(head.header("Content-Type") == get.header("Content-Type"), "HEAD \(path)")
                #expect(head.body.isEmpty, "HEAD \(path) has a body")
            }
            let unknown = try await app.request(.HEAD, "/no/such/page")
            #expect(unknown.status == 404)
            let postOnly = try await app.request(.HEAD, "/build")
            #expect(postOnly.status == 405)
            #expect(postOnly.header("Allow") == "POST")
            // HEAD of an event stream opens none.
            let stream = try await app.request(.HEAD, "/events", headers: [("Cookie", "luthier_session=\(cookie)")])
            #expect(stream.status == 200)
            #expect(app.services.hub.openStreams == 0)
        }
    }

    @Test("only pages with something live name an event stream: never an error page, so none reloads itself")
    func onlyLivePagesNameAStream() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let html = [("Accept", "text/html"), ("Cookie", "luthier_session=\(cookie)")]
            for path in ["/", "/cart"] {
                let page = try await app.get(path, headers: html)
                #expect(
                    page.text.contains(/<body data-version="\d+" data-events="\/events"( data-follows="[^"]*")?>/),
                    "\(path)")
            }
            let errors = [
                try await app.get("/no/such/page", headers: html),
                try await app.get("/orders/424242", headers: html),
                try await app.get("/admin/analytics", headers: html),
                try await app.post("/build", form: "color=plaid", cookie: cookie, headers: [("Accept", "text/html")]),
            ]
            for page in errors {
                #expect(page.status >= 400, "\(page)")
                #expect(page.text.contains("<body>"), "\(page)")
                #expect(!page.text.contains("data-events"), "\(page)")
            }
        }
    }
}
