import Foundation
import LuthierFeatures
import TestSupport
import Testing

@testable import LuthierWeb

extension InspectControllerTests {
    /// The marbles of a diagram that carry a cause: their lane and cause, from the markup.
    static func causedMarbles(_ html: String) -> [(lane: String, cause: Int, label: String)] {
        let pattern = #/data-cause="(\d+)"[^>]*aria-label="([^"]*)"/#
        return html.matches(of: pattern).compactMap { match in
            let label = String(match.output.2)
            guard let cause = Int(match.output.1), let colon = label.firstIndex(of: ":") else { return nil }
            return (String(label[..<colon]), cause, label)
        }
    }

    /// A session recorded (its inspector page loaded) with one tab open, once `forms` have been
    /// posted and each has reached the tab: its cookie, and the tab to close.
    static func recordedChanges(_ app: TestApp, _ forms: [String]) async throws -> RecordedSession {
        let cookie = try await app.newSession()
        // The page's load records for a while.
        _ = try await app.get("/inspect", cookie: cookie)
        let tab = try await app.openEventStream(cookie: cookie)
        _ = try await tab.nextEvent()
        _ = try await tab.nextPatch()
        for form in forms {
            #expect(try await app.scriptPost(form: form, cookie: cookie).status == 204)
            _ = try await tab.nextPatch()
            // Seconds apart, as a person's changes are: drawn apart rather than as one run.
            try await app.advance(by: .seconds(3))
        }
        return RecordedSession(cookie: cookie, tab: tab)
    }

    struct RecordedSession: Sendable {
        let cookie: String
        let tab: EventStreamClient
    }

    @Test("a change's marbles carry its number on every lane it reached: input, state, output and each tab's patch")
    func aChangeIsFollowedAcrossLanes() async throws {
        try await TestApp.run { app in try await Self.followTwoChanges(app) }
    }

    private static func followTwoChanges(_ app: TestApp) async throws {
        let recorded = try await recordedChanges(app, ["color=sky", "shape=longV"])
        let cookie = recorded.cookie
        let marbles = Self.causedMarbles(try await app.get("/inspect", cookie: cookie).text)
        let sky = try #require(marbles.first { $0.label.hasPrefix("build.input: change(color: Sky)") })
        let longV = try #require(marbles.first { $0.label.hasPrefix("build.input: change(shape: Long V)") })
        #expect(sky.cause != longV.cause)
        for change in [sky, longV] {
            let lanes = Set(marbles.filter { $0.cause == change.cause }.map(\.lane))
            #expect(lanes.isSuperset(of: ["build.input", "build.state", "session.output"]), "\(lanes)")
            #expect(lanes.contains { $0.hasPrefix("tab.") && $0.hasSuffix(".patch") }, "\(lanes)")
        }
        // Each lane's marble of the first change is its own, not the second's.
        let skyOutput = marbles.filter { $0.cause == sky.cause && $0.lane == "session.output" }
        #expect(
            skyOutput.allSatisfy { $0.label.contains("Sky") && !$0.label.contains("Long V") }, "\(skyOutput)")
        await recorded.tab.close()
    }

    @Test("selecting a change lights up its marbles and shows only the fields its steps changed, before and after")
    func aSelectedChangeShowsItsDiff() async throws {
        try await TestApp.run { app in
            let recorded = try await Self.recordedChanges(app, ["color=sky"])
            let cookie = recorded.cookie
            let marbles = Self.causedMarbles(try await app.get("/inspect", cookie: cookie).text)
            let input = try #require(marbles.first { $0.label.hasPrefix("build.input: change(color: Sky)") })

            let page = try await app.get("/inspect?window=60&cause=\(input.cause)", cookie: cookie)
            #expect(page.status == 200)
            #expect(page.text.contains("<h2 id=\"cause-heading\">Change \(input.cause)</h2>"), "\(page.text)")
            #expect(page.text.contains("class=\"marbles has-selection\""))
            let lit = page.text.components(separatedBy: "class=\"marble marble-caused\"").count - 1
            #expect(lit == marbles.filter { $0.cause == input.cause }.count, "\(page.text)")
            // The build's step: only the colour changed, from the standard's to Sky.
            let heading = try #require(page.text.range(of: "id=\"cause-heading\""))
            let panel = String(page.text[heading.lowerBound...])
            #expect(panel.contains("<code>build#"), "\(panel)")
            #expect(panel.contains("<code>.guitar.color</code></th><td><code>&quot;"), "\(panel)")
            #expect(panel.contains("<td><code>&quot;sky&quot;</code></td>"), "\(panel)")
            #expect(!panel.contains("<code>.guitar.shape</code>"), "\(panel)")
            // The patch it published, with the fragments it replaced.
            #expect(panel.contains("guitar-picture"), "\(panel)")

            let bad = try await app.get("/inspect?cause=first", cookie: cookie)
            #expect(bad.status == 422)
            #expect(bad.text.contains("cause must be a change's number"))
            await recorded.tab.close()
        }
    }

    @Test("with updates highlighted, each patch names the input that caused it, until the switch is off")
    func highlightedUpdatesNameTheirInput() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let tab = try await app.openEventStream(cookie: cookie)
            _ = try await tab.nextEvent()
            _ = try await tab.nextPatch()
            #expect(try await app.scriptPost(form: "color=dusk", cookie: cookie).status == 204)
            #expect(try await tab.nextSentPatch().patch.note == nil)

            #expect(try await app.scriptPost("/inspect/highlight", form: "highlight=on", cookie: cookie).status == 204)
            let page = try await app.get("/inspect", cookie: cookie)
            #expect(page.text.contains("Stop highlighting updates"), "\(page.text)")
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            let highlighted = try await tab.nextSentPatch().patch
            let note = try #require(highlighted.note)
            #expect(note.hasSuffix(": build.input change(color: Sky)"), "\(note)")
            #expect(note.hasPrefix("Change "), "\(note)")
            #expect(highlighted.targets.contains("guitar-price"))

            #expect(try await app.scriptPost("/inspect/highlight", form: "highlight=off", cookie: cookie).status == 204)
            #expect(try await app.scriptPost(form: "color=earth", cookie: cookie).status == 204)
            #expect(try await tab.nextSentPatch().patch.note == nil)
            #expect(try await app.get("/inspect", cookie: cookie).text.contains("Highlight updates on every open page"))

            let bad = try await app.scriptPost("/inspect/highlight", form: "highlight=yes", cookie: cookie)
            #expect(bad.status == 422)
            #expect(bad.text.contains("highlight must be on or off"), "\(bad.text)")
            await tab.close()
        }
    }
}
