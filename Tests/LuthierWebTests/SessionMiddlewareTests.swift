import Foundation
import Testing

@testable import LuthierWeb

/// The session middleware: every form is read and validated before a session is touched, so no
/// refused post creates (or stores) a session, whatever route it is sent to.
@Suite struct SessionMiddlewareTests {
    /// A post each route refuses before doing anything (a field where none is taken, an unknown
    /// value, a body that is not a form), with the status it is refused with.
    static let refusedPosts: [(path: String, form: String, contentType: String?, status: Int)] = [
        ("/build", "color=chartreuse", TestApp.formType, 422),
        ("/build/reset", "color=sky", TestApp.formType, 422),
        ("/cart/items", "guitar=1", TestApp.formType, 422),
        ("/cart/lines/anything/explode", "", TestApp.formType, 422),
        ("/cart/lines/anything/remove", "quantity=3", TestApp.formType, 422),
        ("/cart/clear", "all=yes", TestApp.formType, 422),
        ("/cart/discount", "code=", TestApp.formType, 422),
        ("/cart/checkout", "now=1", TestApp.formType, 422),
        ("/checkout", "fast=1", TestApp.formType, 422),
        ("/checkout/shipping", "option=teleport", TestApp.formType, 422),
        ("/checkout/currency", "currency=XYZ", TestApp.formType, 422),
        ("/checkout/order", "twice=1", TestApp.formType, 422),
        ("/checkout/dismiss", "x=1", TestApp.formType, 422),
        ("/checkout/leave", "x=1", TestApp.formType, 422),
        ("/build", "color=sky", "text/plain", 415),
    ]

    @Test("a refused post creates no session and sets no cookie", arguments: 0..<refusedPosts.count)
    func aRefusedPostCreatesNoSession(_ index: Int) async throws {
        let post = Self.refusedPosts[index]
        try await TestApp.run { app in
            let response = try await app.post(post.path, form: post.form, contentType: post.contentType)
            #expect(response.status == post.status, "\(post.path): \(response)")
            #expect(SetCookie(response) == nil, "\(post.path)")
            #expect(app.services.registry.count == 0, "\(post.path) made a session")
        }
    }

    @Test("an accepted post creates the session, stores it before answering and sets the cookie")
    func anAcceptedPostCreatesAndStoresTheSession() async throws {
        try await TestApp.run { app in
            let response = try await app.scriptPost(form: "color=sky", cookie: nil)
            #expect(response.status == 204)
            let cookie = try #require(SetCookie(response))
            #expect(app.services.registry.count == 1)
            let session = try #require(app.liveSession(cookie.value))
            // Stored before the answer: the store has it at the revision the answer followed.
            let stored = try await app.services.environment.sessions.load(session.id.storageKey)?.snapshot
            #expect(stored?.guitar.color == .sky)
        }
    }
}
