import TestSupport
import Testing

@testable import LuthierWeb

/// The admin pages' sign-in: a form post and a short-lived admin cookie instead of a token in the
/// address, a lock-out after failed attempts, and bearer tokens for scripts.
@Suite("AdminController over HTTP")
struct AdminControllerTests {
    static let token = "an-admin-token-of-thirty-two-characters-at-least"

    static func configure(_ configuration: inout LuthierConfiguration) {
        configuration.adminToken = token
        // A sign-in's lifetime is half an hour: with the default 15 s heartbeat, moving the clock
        // through it stepped over a hundred heartbeats, each waiting for the server's timers to
        // sleep again, which a loaded machine once took longer than the guard allows.
        configuration.heartbeatInterval = .seconds(3_600)
    }

    static func signIn(_ app: TestApp, token: String = token) async throws -> TestHTTPResponse {
        try await app.post("/admin/sign-in", form: "token=\(token)")
    }

    @Test("signing in with the form sets a short-lived admin cookie that opens the page, and signing out ends it")
    func signInAndOut() async throws {
        try await TestApp.run(configure: Self.configure) { app in
            let form = try await app.get("/admin/sign-in")
            #expect(form.status == 200)
            #expect(form.text.contains("<input id=\"admin-token\" name=\"token\" type=\"password\""))

            let wrong = try await Self.signIn(app, token: "nope")
            #expect(wrong.status == 401)
            #expect(wrong.text.contains("That is not the admin token."))
            #expect(wrong.headers["Set-Cookie"].isEmpty)

            let right = try await Self.signIn(app)
            #expect(right.status == 303)
            #expect(right.header("Location") == "/admin")
            let cookie = try #require(SetCookie(right))
            #expect(cookie.name == "luthier_admin")
            #expect(cookie.value != Self.token && !cookie.value.contains(Self.token))
            #expect(cookie.attributes["httponly"] != nil)
            #expect(cookie.attributes["samesite"]?.lowercased() == "strict")
            #expect(cookie.attributes["path"] == "/admin")
            #expect(cookie.attributes["max-age"] == "1800")

            let admin = [("Cookie", "luthier_admin=\(cookie.value)")]
            #expect(try await app.get("/admin/analytics", headers: admin).status == 200)

            let signOut = try await app.post("/admin/sign-out", form: "", headers: admin)
            #expect(signOut.status == 303)
            #expect(SetCookie(signOut)?.attributes["max-age"] == "0")
            #expect(try await app.get("/admin/analytics", headers: admin).status == 401)
        }
    }

    @Test("every admin sign-in, refusal and sign-out is logged, with neither the token nor the sign-in's cookie")
    func adminActionsAreLogged() async throws {
        let log = LogCapture()
        try await TestApp.run(configure: Self.configure, log: log) { app in
            _ = try await Self.signIn(app, token: "not-it")
            let cookie = try #require(SetCookie(try await Self.signIn(app)))
            _ = try await app.get("/admin/analytics", headers: [("Authorization", "Bearer not-it-either")])
            _ = try await app.post("/admin/sign-out", form: "", headers: [("Cookie", "luthier_admin=\(cookie.value)")])
            let admin = log.all.filter { $0.contains("Admin ") }
            #expect(
                admin == [
                    "warning Admin sign-in refused: not the admin token client=127.0.0.1",
                    "notice Admin signed in minutes=30",
                    "warning Admin request refused: not the admin token client=127.0.0.1",
                    "notice Admin signed out",
                ], "\(admin)")
            let whole = log.all.joined(separator: "\n")
            for secret in [Self.token, cookie.value, "not-it"] { #expect(!whole.contains(secret)) }
        }
    }

    @Test("a sign-in ends after its lifetime on the clock")
    func signInExpires() async throws {
        try await TestApp.run(configure: Self.configure) { app in
            let cookie = try #require(SetCookie(try await Self.signIn(app)))
            let admin = [("Cookie", "luthier_admin=\(cookie.value)")]
            try await app.advance(by: .seconds(29 * 60))
            #expect(try await app.get("/admin/analytics", headers: admin).status == 200)
            try await app.advance(by: .seconds(60))
            let expired = try await app.get("/admin/analytics", headers: admin + [("Accept", "text/html")])
            #expect(expired.status == 303)
            #expect(expired.header("Location") == "/admin/sign-in")
        }
    }

    @Test("the token is never taken in the address, not even the right one")
    func noTokenInTheAddress() async throws {
        try await TestApp.run(configure: Self.configure) { app in
            let response = try await app.get("/admin/analytics?token=\(Self.token)")
            #expect(response.status == 400)
            #expect(response.text.contains("The admin token is not taken in the address"), "\(response.text)")
            let bearer = try await app.get("/admin/analytics", headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(bearer.status == 200)
        }
    }

    @Test("after five failed attempts from an address, even the right token waits: 429 with Retry-After")
    func failedAttemptsAreLimited() async throws {
        try await TestApp.run(configure: Self.configure) { app in
            for attempt in 0..<5 {
                let response =
                    attempt.isMultiple(of: 2)
                    ? try await Self.signIn(app, token: "guess-\(attempt)")
                    : try await app.get("/admin/analytics", headers: [("Authorization", "Bearer guess-\(attempt)")])
                #expect(response.status == 401, "attempt \(attempt)")
            }
            let locked = try await Self.signIn(app)
            #expect(locked.status == 429)
            #expect(locked.header("Retry-After") == "900")
            #expect(locked.text.contains("Too many failed admin sign-ins"), "\(locked.text)")
            let bearer = try await app.get("/admin/analytics", headers: [("Authorization", "Bearer \(Self.token)")])
            #expect(bearer.status == 429)
            try await app.advance(by: .seconds(15 * 60))
            #expect(try await Self.signIn(app).status == 303)
        }
    }

    @Test("a browser without a sign-in is sent to the form; a script is told how to authenticate")
    func unauthenticated() async throws {
        try await TestApp.run(configure: Self.configure) { app in
            let browser = try await app.get("/admin/analytics", headers: [("Accept", "text/html")])
            #expect(browser.status == 303)
            #expect(browser.header("Location") == "/admin/sign-in")
            let script = try await app.get("/admin/analytics")
            #expect(script.status == 401)
            #expect(script.header("WWW-Authenticate") == #"Bearer realm="luthier-admin""#)
        }
    }
}
