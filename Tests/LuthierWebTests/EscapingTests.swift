import Foundation
import Testing

@testable import LuthierWeb

/// What a customer typed and the shop shows back (a rejected value, a field name, a discount code,
/// a line or order number in the address) is shown as text: markup in it never becomes markup in
/// an HTML answer, a page, or a patch on the event stream.
@Suite("Escaping what a customer typed")
struct EscapingTests {
    /// Markup that would run if it were shown as it was typed: in element content, and breaking out
    /// of a double- or single-quoted attribute.
    static let markups = [
        "<script>alert(1)</script>", "\"><img src=x onerror=alert(1)>", "'><svg onload=alert(1)>",
    ]
    /// What any of them looks like once it has become markup.
    static let live = ["<script>alert", "<img src=x", "<svg onload"]

    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    static func expectInert(_ text: String, _ place: String, sourceLocation: SourceLocation = #_sourceLocation) {
        for markup in live {
            #expect(!text.contains(markup), "\(place) shows \(markup) as markup", sourceLocation: sourceLocation)
        }
    }

    /// Every post that takes text, with `markup` in a value, a field name or the address.
    static func posts(with markup: String) -> [(path: String, form: String)] {
        let text = encoded(markup)
        return [
            ("/build", "shape=\(text)"), ("/build", "color=\(text)"), ("/build", "body=\(text)"),
            ("/build", "fretboard=\(text)"), ("/build", "\(text)=casual"),
            ("/cart/items", "\(text)=1"), ("/cart/discount", "code=\(text)"), ("/cart/discount", "\(text)=WELCOME10"),
            ("/cart/lines/\(text)/increment", ""), ("/cart/lines/x/\(text)", ""),
            ("/checkout/shipping", "option=\(text)"), ("/checkout/currency", "currency=\(text)"),
            ("/checkout/order", "\(text)=1"),
        ]
    }

    @Test("markup posted in every field comes back inert in the answers, the pages and the event stream")
    func markupIsInertEverywhere() async throws {
        try await TestShop.run { app, _ in
            let cookie = try await CheckoutControllerTests.checkedOut(app)
            let stream = try await app.openEventStream(cookie: cookie)
            #expect(try await stream.nextEvent().retry != nil)
            _ = try await stream.nextPatch()

            var htmlAnswers = 0
            var escapedEchoes = 0
            for markup in Self.markups {
                for (path, form) in Self.posts(with: markup) {
                    let page = try await app.post(path, form: form, cookie: cookie, headers: [("Accept", "text/html")])
                    #expect((400..<500).contains(page.status), "\(path) \(form): \(page)")
                    #expect(page.header("Content-Type") == "text/html; charset=utf-8", "\(path) \(form)")
                    Self.expectInert(page.text, "the HTML answer to \(path) \(form)")
                    htmlAnswers += 1
                    if page.text.contains("&lt;") || page.text.contains("&quot;") || page.text.contains("&#39;") {
                        escapedEchoes += 1
                    }

                    // A script shows the refusal's text itself (as text, never as markup); the answer
                    // says it is plain text and must not be sniffed as anything else.
                    let scripted = try await app.scriptPost(path, form: form, cookie: cookie)
                    #expect((400..<500).contains(scripted.status), "\(path) \(form): \(scripted)")
                    #expect(scripted.header("Content-Type") == "text/plain; charset=utf-8", "\(path) \(form)")
                    #expect(scripted.header("X-Content-Type-Options") == "nosniff", "\(path) \(form)")
                }
                for path in [
                    "/orders/\(Self.encoded(markup))?key=\(Self.encoded(markup))",
                    "/admin/analytics?token=\(Self.encoded(markup))", "/\(Self.encoded(markup))",
                ] {
                    let page = try await app.get(path, cookie: cookie, headers: [("Accept", "text/html")])
                    #expect((400..<500).contains(page.status), "\(path): \(page)")
                    Self.expectInert(page.text, "the answer to GET \(path)")
                }
            }
            // The refusals did quote what was typed, so the check above was not vacuous.
            #expect(
                escapedEchoes >= Self.markups.count * 5, "\(escapedEchoes) of \(htmlAnswers) answers quoted the input")

            for path in ["/", "/cart", "/checkout"] {
                let page = try await app.get(path, cookie: cookie)
                #expect(page.status == 200, "\(path): \(page)")
                Self.expectInert(page.text, "the page \(path)")
            }

            // Everything the stream sent up to a change made after the posts: none of it is markup.
            let shown = try #require(await app.page(cookie: cookie).description)
            let accepted = try await app.scriptPost("/build/reset", form: "", cookie: cookie)
            #expect(accepted.status == 204, "\(accepted)")
            let reset = try #require(await app.page(cookie: cookie).description)
            #expect(reset != shown, "the reset changed nothing to wait for")
            var patches = 0
            while true {
                let event = try await stream.nextEvent()
                Self.expectInert(event.data.joined(separator: "\n"), "an event on the stream")
                guard event.event == "patch" else { continue }
                patches += 1
                let patch = try event.patch()
                for fragment in patch.fragments {
                    Self.expectInert(fragment.html, "the stream's fragment \(fragment.target)")
                }
                if patch.fragments.contains(where: { $0.html.contains(reset) }) { break }
            }
            #expect(patches >= 1)
            await stream.close()

            // The reset closed the checkout: the builder and the cart are what is left to show.
            for path in ["/", "/cart"] {
                let page = try await app.get(path, cookie: cookie)
                #expect(page.status == 200, "\(path): \(page)")
                Self.expectInert(page.text, "the page \(path) after the reset")
            }
        }
    }
}
