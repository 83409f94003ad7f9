import ServerMachinery
import TestSupport
import Testing

@testable import LuthierWeb

@Suite("SecurityHeadersMiddleware over HTTP")
struct SecurityHeadersMiddlewareTests {
    static func checkHeaders(_ response: TestHTTPResponse, _ what: String) {
        let csp = response.header("Content-Security-Policy") ?? ""
        #expect(csp.contains("default-src 'self'"), "\(what)")
        #expect(csp.contains("script-src 'self'"), "\(what)")
        #expect(csp.contains("frame-ancestors 'none'"), "\(what)")
        #expect(!csp.contains("unsafe-inline"), "\(what)")
        #expect(!csp.contains("unsafe-eval"), "\(what)")
        #expect(response.header("X-Content-Type-Options") == "nosniff", "\(what)")
        #expect(response.header("X-Frame-Options") == "DENY", "\(what)")
        #expect(response.header("Referrer-Policy") == "same-origin", "\(what)")
    }

    @Test("every kind of response carries the security headers")
    func everyResponse() async throws {
        try await TestApp.run { app in
            let page = try await app.get()
            #expect(page.status == 200)
            Self.checkHeaders(page, "page")
            let cookie = try #require(SetCookie(page)).value

            let noContent = try await app.scriptPost(form: "shape=longV", cookie: cookie)
            #expect(noContent.status == 204)
            Self.checkHeaders(noContent, "204")

            let redirect = try await app.post(form: "shape=longV", cookie: cookie)
            #expect(redirect.status == 303)
            Self.checkHeaders(redirect, "303")

            let invalid = try await app.post(form: "shape=banjo", cookie: cookie)
            #expect(invalid.status == 422)
            Self.checkHeaders(invalid, "422")

            let refused = try await app.post(form: "shape=longV", headers: [("Origin", "http://evil.example")])
            #expect(refused.status == 403)
            Self.checkHeaders(refused, "403")

            let noStream = try await app.get("/events")
            #expect(noStream.status == 403)
            Self.checkHeaders(noStream, "events 403")

            let stream = try await app.openEventStream(cookie: cookie)
            #expect(stream.head.status.code == 200)
            #expect(stream.head.headers.first(name: "X-Content-Type-Options") == "nosniff")
            #expect(
                stream.head.headers.first(name: "Content-Security-Policy")?.contains("frame-ancestors 'none'") == true)
            await stream.close()
        }
    }
}
