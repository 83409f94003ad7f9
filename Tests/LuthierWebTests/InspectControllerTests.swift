import Foundation
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

/// The stream inspector over HTTP: the page and its own event stream, which redraws the session's
/// lanes as the session moves; a session sees only its own streams; every shown text escaped.
@Suite("Stream inspector over HTTP")
struct InspectControllerTests {
    /// Moves the test clock by one redraw interval, once the inspector's redraw sleeps beside the
    /// server's own timers.
    static func redraw(_ app: TestApp) async throws {
        try await app.clock.advance(by: InspectController.redrawInterval, timers: TestApp.serverTimers + 1)
    }

    @Test("without a session the page says what to do, and follows nothing")
    func noSession() async throws {
        try await TestApp.run { app in
            let page = try await app.get("/inspect")
            #expect(page.status == 200)
            #expect(page.text.contains("Nothing to inspect yet"))
            #expect(!page.text.contains("data-events"))
            let stream = try await app.get("/inspect/events")
            #expect(stream.status == 403)
        }
    }

    @Test("a change travels from the input to the state, the output and each open tab, live")
    func aChangeIsDrawnLive() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let page = try await app.get("/inspect?window=10", cookie: cookie)
            #expect(page.text.contains("data-events=\"/inspect/events?window=10\""), "\(page)")
            let tab = try await app.openEventStream(cookie: cookie)
            _ = try await tab.nextEvent()
            _ = try await tab.nextPatch()
            let inspector = try await app.openEventStream("/inspect/events?window=10", cookie: cookie)
            #expect(try await inspector.nextEvent().retry != nil)
            _ = try await inspector.nextPatch()

            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            _ = try await tab.nextPatch()
            try await Self.redraw(app)
            let lanes = try #require(try await inspector.nextPatch().patch.html(InspectController.target))
            #expect(lanes.contains(">build.input</text>"), "\(lanes)")
            #expect(lanes.contains("build.input: change(color: Sky)"), "\(lanes)")
            #expect(lanes.contains(">build.state</text>"))
            #expect(lanes.contains(">session.output</text>"))
            #expect(lanes.contains("session.output: build: Sky Casual"))
            // The builder's open tab got a patch, on a lane of its own.
            #expect(lanes.range(of: #">tab\.\d+\.patch</text>"#, options: .regularExpression) != nil, "\(lanes)")
            // The inspector's own stream is not a tab of the diagram.
            #expect(lanes.components(separatedBy: ".patch</text>").count == 2)
            // Inputs come before states, states before the output, the output before the tabs.
            let order = ["build.input", "build.state", "session.output", "tab."].compactMap {
                lanes.range(of: ">\($0)")?.lowerBound
            }
            #expect(order == order.sorted() && order.count == 4)
            await inspector.close()
            await tab.close()
        }
    }

    @Test("a session sees only its own streams, and nothing is recorded before an inspector opens")
    func onlyYourOwnStreams() async throws {
        try await TestApp.run { app in
            let mine = try await app.newSession()
            let theirs = try await app.newSession()
            // Recorded by nobody: no inspector is open yet.
            #expect(try await app.scriptPost(form: "color=dusk", cookie: mine).status == 204)
            let before = try await app.get("/inspect", cookie: mine)
            #expect(!before.text.contains("color: Dusk"))
            #expect(before.text.contains("Nothing recorded in this window yet"))
            // The page's load records for a while (a page without JavaScript refreshes itself).
            #expect(try await app.scriptPost(form: "color=sky", cookie: mine).status == 204)
            let after = try await app.get("/inspect", cookie: mine)
            #expect(after.text.contains("color: Sky"))
            let other = try await app.get("/inspect", cookie: theirs)
            #expect(!other.text.contains("color: Sky"))
        }
    }

    @Test("a window other than 10, 60 or 300 seconds is refused with a sentence")
    func badWindow() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let response = try await app.get("/inspect?window=7", cookie: cookie)
            #expect(response.status == 422)
            #expect(response.text.contains("window must be 10, 60 or 300"))
        }
    }

    @Test("a query parameter sent twice is refused naming it, as a form field sent twice is, not read at its first")
    func repeatedQueryParameter() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            for (path, name) in [
                ("/inspect?window=10&window=300", "window"), ("/inspect?lane=build&lane=cart", "lane"),
                ("/inspect?moment=1&moment=2", "moment"), ("/inspect/events?cause=1&cause=1", "cause"),
                ("/inspect/moment?moment=1&page=cart&page=builder", "page"),
            ] {
                let refused = try await app.get(path, cookie: cookie)
                #expect(refused.status == 422, "\(path)")
                #expect(refused.text.contains("'\(name)' was sent more than once; send it once."), "\(refused.text)")
            }
            let order = try await app.get("/orders/LUT-1234?key=a&key=b", cookie: cookie)
            #expect(order.status == 422)
            #expect(order.text.contains("'key' was sent more than once"), "\(order.text)")
        }
    }

    @Test("a lane filter shows only the lanes whose name starts with it; a filter that is not a name is refused")
    func laneFilter() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            _ = try await app.get("/inspect", cookie: cookie)
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let states = try await app.get("/inspect?lane=build.state", cookie: cookie)
            #expect(states.text.contains(">build.state</text>"))
            #expect(!states.text.contains(">build.input</text>"))
            #expect(states.text.contains("data-events=\"/inspect/events?window=60&amp;lane=build.state\""), "\(states)")
            let refused = try await app.get("/inspect?lane=%3Cb%3E", cookie: cookie)
            #expect(refused.status == 422)
            #expect(refused.text.contains("lane must be the start of a lane's name"))
        }
    }

    static let token = String(repeating: "t0k3n", count: 8)

    @Test("the shop's streams are the admin's: the kiosk feed and the workshop floor, behind the token")
    func shopStreams() async throws {
        try await TestApp.run(configure: { $0.adminToken = Self.token }) { app in
            let redirect = try await app.get("/inspect/shop")
            #expect(redirect.status == 303)
            #expect(redirect.header("Location") == "/admin/inspect")
            #expect(try await app.get("/admin/inspect").status == 401)
            #expect(try await app.get("/admin/inspect", headers: [("Accept", "text/html")]).status == 303)
            #expect(try await app.get("/admin/inspect/events").status == 401)
            let bearer = [("Authorization", "Bearer \(Self.token)")]
            let first = try await app.get("/admin/inspect", headers: bearer)
            #expect(first.status == 200)
            #expect(first.text.contains("The shop&#39;s streams") || first.text.contains("The shop's streams"))
            #expect(first.text.contains(">shop.connections</text>"), "\(first)")
            #expect(first.text.contains("connections, "))
            // The page's load records for a while: a builder's guitar reaches the kiosk feed.
            let cookie = try await app.newSession()
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            // The feed records the guitar before it shows it.
            #expect(
                await firstValue(of: app.services.showroom.feed.outputs()) {
                    !$0.showcase.isAttract && $0.showcase.description.contains("Sky")
                })
            let shown = try await app.get("/admin/inspect", headers: bearer)
            #expect(shown.text.contains("kiosk.effect: built(Sky"), "\(shown.text)")
        }
    }

    @Test("without an admin token the shop's streams do not exist")
    func noTokenNoShopStreams() async throws {
        try await TestApp.run { app in
            let response = try await app.get("/admin/inspect")
            #expect(response.status == 404)
        }
    }

    @Test("every text in the diagram is escaped")
    func escaped() async throws {
        let renderer = try await PageRenderer(
            directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
        let diagram = MarbleDiagram(
            events: [
                TapEvent(lane: "cart.input", kind: .value, text: "applyDiscount(<script>alert(1)</script>)", at: .zero),
                TapEvent(lane: "x\"><b>", kind: .failure, text: "'&'", at: .seconds(1)),
            ],
            window: .seconds(10), now: .seconds(2))
        let svg = renderer.render(diagram.view, template: "fragments/inspector-lanes")
        #expect(!svg.contains("<script>"))
        #expect(!svg.contains("<b>"))
        #expect(svg.contains("&lt;script&gt;"))
        #expect(svg.contains("failed: &#39;&amp;&#39;") || svg.contains("failed: &#x27;&amp;&#x27;"), "\(svg)")
    }
}
