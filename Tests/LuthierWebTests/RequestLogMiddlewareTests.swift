import TestSupport
import Testing

@testable import LuthierWeb

/// The server's log: one line per request with a request id the answer carries, one per refusal
/// with its cause, and never a cookie or a session id.
@Suite("Request log over HTTP")
struct RequestLogMiddlewareTests {
    @Test("each request is logged once with its method, route pattern, status and the id sent in X-Request-Id")
    func oneLinePerRequest() async throws {
        let log = LogCapture()
        try await TestApp.run(log: log) { app in
            let page = try await app.get("/")
            let id = try #require(page.header("X-Request-Id"))
            #expect(id.utf8.count == 16 && id.allSatisfy(\.isHexDigit), "\(id)")
            let lines = log.all.filter { $0.contains("request=\(id)") }
            #expect(lines.count == 1, "\(lines)")
            #expect(lines.first?.hasPrefix("info GET / 200 ") == true, "\(lines)")

            let missing = try await app.get("/orders/123456789")
            let missingID = try #require(missing.header("X-Request-Id"))
            #expect(missingID != id)
            let missingLine = log.all.first { $0.contains("request=\(missingID)") }
            // The route's pattern, never the number asked for (nor an order's key in the query).
            #expect(missingLine?.contains("GET /orders/{number} ") == true, "\(String(describing: missingLine))")
            #expect(missingLine?.contains("123456789") == false)

            let unrouted = try await app.get("/no/such/page")
            let unroutedID = try #require(unrouted.header("X-Request-Id"))
            #expect(log.all.contains { $0.contains("GET NotFound 404") && $0.contains(unroutedID) }, "\(log.all)")
        }
    }

    @Test("a whole scripted session's log holds no cookie, session id or order key")
    func noSecretsInTheLog() async throws {
        let log = LogCapture()
        try await TestApp.run(log: log) { app in
            let cookie = try await app.newSession()
            _ = try await app.scriptPost(form: "color=sky", cookie: cookie)
            _ = try await app.scriptPost("/cart/items", form: "", cookie: cookie)
            _ = try await app.get("/cart", cookie: cookie)
            _ = try await app.post(form: "color=plaid", cookie: cookie)
            // A cookie that differs from the real one in its first digit: refused, and not logged.
            let forged = (cookie.hasPrefix("0") ? "1" : "0") + cookie.dropFirst()
            _ = try await app.get("/events?token=abc", cookie: forged)
            let session = try #require(app.liveSession(cookie))
            let all = log.all.joined(separator: "\n")
            #expect(!all.isEmpty)
            #expect(!all.contains(cookie))
            #expect(!all.contains(String(cookie.dropFirst())))
            #expect(!all.contains(session.orderKey))
            #expect(!all.contains(session.shop.analyticsKey))
            #expect(!all.contains("token=abc"))
        }
    }
}
