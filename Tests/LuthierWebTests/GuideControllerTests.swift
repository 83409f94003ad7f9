import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierWeb

/// The guided build over real HTTP: every step without JavaScript (post, `303`, get) and as the
/// page's script drives it (`204`, then the patches on the session's stream), every refusal with
/// its sentence and nothing changed, and a guide that resumes after a restart.
@Suite("GuideController over HTTP")
struct GuideControllerTests {
    /// The parts of the guide page the tests read.
    struct GuidePageSnapshot {
        let html: String

        var heading: String? { html.firstMatch(of: /id="guide-heading"[^>]*>([^<]*)</).map { String($0.output.1) } }
        var step: String? { html.firstMatch(of: /data-step="([a-z]+)"/).map { String($0.output.1) } }
        var checked: [String] {
            html.matches(of: /<input class="guide-option-input"[^>]*value="([A-Za-z]+)"[^>]*checked/).map {
                String($0.output.1)
            }
        }
        var nextDisabled: Bool {
            html.contains(
                #"id="guide-next" class="button" type="submit" formaction="/guide/next" aria-disabled="true""#)
        }
        var hasBack: Bool { html.contains(#"id="guide-back""#) }
        var answers: [String] { html.matches(of: /<dd>([^<]*)<\/dd>/).map { String($0.output.1) } }
        var summary: String? { html.firstMatch(of: /id="guide-summary"[^>]*>([^<]*)</).map { String($0.output.1) } }
    }

    static func guide(_ app: TestApp, cookie: String) async throws -> GuidePageSnapshot {
        let response = try await app.get("/guide", cookie: cookie)
        try #require(response.status == 200, "\(response)")
        return GuidePageSnapshot(html: response.text)
    }

    /// A post as a form without JavaScript sends it: answered `303` back to the guide.
    static func formPost(_ app: TestApp, _ path: String, _ form: String, cookie: String) async throws {
        let response = try await app.post(path, form: form, cookie: cookie)
        try #require(response.status == 303, "\(path) \(form): \(response)")
        #expect(response.header("Location") == "/guide" || path == "/guide/finish")
    }

    @Test("a new visitor sees the first step, nothing chosen, Next not enabled, and a link to the builder")
    func firstVisit() async throws {
        try await TestApp.run { app in
            let response = try await app.get("/guide")
            #expect(response.status == 200)
            #expect(response.header("Cache-Control") == "no-store")
            let page = GuidePageSnapshot(html: response.text)
            #expect(page.heading == "Step 1 of 5: Shape")
            #expect(page.checked.isEmpty)
            #expect(page.nextDisabled)
            #expect(!page.hasBack)
            #expect(page.html.contains(#"aria-current="step">Shape"#))
            #expect(page.html.contains(#"<a href="/">Skip the guide and open the builder</a>"#))
            #expect(page.html.contains("Rounded and comfortable on the lap"))
            // A page alone makes no session.
            #expect(app.services.registry.count == 0)
            // The builder and the kiosk link here.
            #expect(try await app.get("/").text.contains(#"<a href="/guide">Take the guided build</a>"#))
            #expect(try await app.get("/kiosk").text.contains(#"<a href="/guide">"#))
        }
    }

    @Test(
        "without JavaScript: every step posts and redirects, Back keeps answers, the review hands the guitar to the builder"
    )
    func wholeGuideWithForms() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            // Next with the step's answer (the form sends the chosen option with Next).
            try await Self.formPost(app, "/guide/next", "shape=longV", cookie: cookie)
            var page = try await Self.guide(app, cookie: cookie)
            #expect(page.heading == "Step 2 of 5: Color")
            #expect(page.nextDisabled)
            #expect(page.hasBack)
            #expect(page.summary == "So far: Long V; color, body and fretboard to come · ")
            // Back with an answer keeps it: both answers are there when the step comes again.
            try await Self.formPost(app, "/guide/back", "color=dusk", cookie: cookie)
            page = try await Self.guide(app, cookie: cookie)
            #expect(page.step == "shape")
            #expect(page.checked == ["longV"])
            #expect(!page.nextDisabled)
            try await Self.formPost(app, "/guide/next", "", cookie: cookie)
            page = try await Self.guide(app, cookie: cookie)
            #expect(page.step == "color")
            #expect(page.checked == ["dusk"])
            // An answer on its own, then Next without one.
            try await Self.formPost(app, "/guide/answer", "color=sky", cookie: cookie)
            try await Self.formPost(app, "/guide/next", "", cookie: cookie)
            try await Self.formPost(app, "/guide/next", "body=koa", cookie: cookie)
            try await Self.formPost(app, "/guide/next", "fretboard=ebony", cookie: cookie)
            page = try await Self.guide(app, cookie: cookie)
            #expect(page.heading == "Step 5 of 5: Review")
            #expect(page.answers == ["Long V (+$75)", "Sky (+$150)", "Koa (+$100)", "Ebony (+$100)"])
            #expect(page.html.contains(#"name="then" value="checkout""#))
            // The builder still has its own guitar until the guide is finished.
            #expect(try await app.page(cookie: cookie).description == BuildControllerTests.defaultDescription)
            let finish = try await app.post("/guide/finish", form: "then=builder", cookie: cookie)
            #expect(finish.status == 303)
            #expect(finish.header("Location") == "/")
            #expect(
                try await app.page(cookie: cookie).description == "Sky Long V with Koa body and Ebony fretboard")
            // The guide stays at its review; starting again forgets every answer.
            #expect(try await Self.guide(app, cookie: cookie).step == "review")
            try await Self.formPost(app, "/guide/restart", "", cookie: cookie)
            page = try await Self.guide(app, cookie: cookie)
            #expect(page.step == "shape")
            #expect(page.checked.isEmpty)
        }
    }

    @Test("bad input gets its sentence and changes nothing")
    func refusals() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let refused: [(path: String, form: String, status: Int, sentence: String)] = [
                ("/guide/next", "", 409, "Choose a shape first: Next moves on once the Shape step is answered."),
                ("/guide/back", "", 409, "The guide is at its first step; there is no step before Shape."),
                (
                    "/guide/answer", "color=sky", 409,
                    "The guide is at the Shape step; it takes shape (casual, chunky, longV, sharpV), not color."
                ),
                ("/guide/answer", "shape=round", 422, "shape"),
                ("/guide/answer", "neck=long", 422, "neck"),
                ("/guide/answer", "shape=longV&shape=sharpV", 422, "shape"),
                ("/guide/answer", "shape=longV&color=sky", 422, "A guide step takes one field"),
                ("/guide/answer", "", 422, "An answer needs the step's field, such as shape=longV."),
                ("/guide/back", "shape=longV", 409, "there is no step before Shape"),
                ("/guide/finish", "then=checkout", 409, "it can be finished from the review"),
                (
                    "/guide/finish", "then=somewhere", 422,
                    "Field 'then' cannot be 'somewhere'; allowed values: builder, checkout."
                ),
                ("/guide/restart", "shape=longV", 422, "takes no fields"),
            ]
            for refusal in refused {
                let response = try await app.scriptPost(refusal.path, form: refusal.form, cookie: cookie)
                #expect(response.status == refusal.status, "\(refusal.path) \(refusal.form): \(response)")
                #expect(response.text.contains(refusal.sentence), "\(refusal.path) \(refusal.form): \(response.text)")
                let page = try await Self.guide(app, cookie: cookie)
                #expect(
                    page.step == "shape" && page.checked.isEmpty, "\(refusal.path) \(refusal.form) changed the guide")
            }
            // At the review, an answer is refused too.
            for form in ["shape=casual", "color=natural", "body=mahogany", "fretboard=rosewood"] {
                #expect(try await app.scriptPost("/guide/next", form: form, cookie: cookie).status == 204)
            }
            let late = try await app.scriptPost("/guide/answer", form: "body=koa", cookie: cookie)
            #expect(late.status == 409)
            #expect(late.text.contains("The review asks nothing"))
            #expect(try await app.scriptPost("/guide/next", form: "", cookie: cookie).status == 409)
        }
    }

    @Test(
        "with JavaScript: each post answers 204 and the session's stream brings the step, the picture and the summary")
    func liveOverTheEventStream() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let stream = try await app.openEventStream(cookie: cookie)
            #expect(try await stream.nextEvent().retry == "2000")
            let opening = try await stream.nextPatch().patch
            #expect(!opening.targets.contains("guide-step"), "no guide before its first step")
            #expect(try await app.scriptPost("/guide/answer", form: "shape=sharpV", cookie: cookie).status == 204)
            var (_, patch) = try await stream.nextPatch()
            #expect(
                Set(patch.targets).isSuperset(of: ["guide-step", "guide-progress", "guide-picture", "guide-summary"]))
            #expect(
                patch.html("guide-step")?.contains(
                    #"value="sharpV" aria-describedby="guide-shape-sharpV-note" checked"#) == true)
            #expect(patch.html("guide-step")?.contains(#"aria-disabled="true""#) == false, "Next is enabled")
            #expect(patch.html("guide-picture")?.contains(#"data-shape="sharpV""#) == true)
            #expect(patch.html("guide-summary")?.contains("So far: Sharp V") == true)
            // Next: the new step's heading, where the script moves focus; the picture stays.
            #expect(try await app.scriptPost("/guide/next", form: "", cookie: cookie).status == 204)
            (_, patch) = try await stream.nextPatch()
            #expect(patch.html("guide-step")?.contains(#"data-step="color">Step 2 of 5: Color</h2>"#) == true)
            #expect(!patch.targets.contains("guide-picture"))
            #expect(!patch.targets.contains("guitar-picture"), "the builder's own picture is untouched")
            await stream.close()
        }
    }

    @Test("a guide resumes at its step after the server restarts")
    func resumesAfterARestart() async throws {
        let path = SessionPersistenceTests.temporaryDatabase()
        defer { SessionPersistenceTests.remove(path) }
        let first = try TestShop(path: path)
        let cookie = try await TestApp.run(environment: first.environment(clock:)) { app in
            let cookie = try await app.newSession()
            for form in ["shape=chunky", "color=earth"] {
                #expect(try await app.scriptPost("/guide/next", form: form, cookie: cookie).status == 204)
            }
            #expect(try await app.scriptPost("/guide/answer", form: "body=blackLimba", cookie: cookie).status == 204)
            return cookie
        }
        let second = try TestShop(path: path)
        try await TestApp.run(environment: second.environment(clock:)) { app in
            let page = try await Self.guide(app, cookie: cookie)
            #expect(page.heading == "Step 3 of 5: Body")
            #expect(page.checked == ["blackLimba"])
            #expect(try await app.scriptPost("/guide/back", form: "", cookie: cookie).status == 204)
            #expect(try await Self.guide(app, cookie: cookie).checked == ["earth"])
        }
    }

    @Test("the review's Check out now goes straight to the checkout of the guide's guitar")
    func finishToCheckout() async throws {
        try await TestShop.run { app, _ in
            let cookie = try await app.newSession()
            for form in ["shape=longV", "color=sky", "body=mahogany", "fretboard=rosewood"] {
                #expect(try await app.scriptPost("/guide/next", form: form, cookie: cookie).status == 204)
            }
            let finish = try await app.post("/guide/finish", form: "then=checkout", cookie: cookie)
            #expect(finish.status == 303, "\(finish)")
            #expect(finish.header("Location") == "/checkout")
            let checkout = try await app.get("/checkout", cookie: cookie)
            #expect(checkout.status == 200)
            #expect(checkout.text.contains("Sky Long V with Mahogany body and Rosewood fretboard"))
        }
    }
}
