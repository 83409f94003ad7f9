import Foundation
import TestSupport
import Testing

@testable import LuthierWeb

/// The inspector cannot be made a CPU amplifier: a few per session and per client address, one
/// diagram per session and view however many streams follow it, drawn only when it moved, and a
/// trace encoded and compressed once per recorded step.
extension InspectControllerTests {
    @Test("inspectors are capped per session and per client address: past the cap, 429 with a sentence")
    func inspectorCaps() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            var open: [EventStreamClient] = []
            for _ in 0..<app.configuration.maxInspectorsPerSession {
                let inspector = try await app.openEventStream("/inspect/events?window=300", cookie: cookie)
                #expect(inspector.head.status.code == 200)
                open.append(inspector)
            }
            let perSession = app.configuration.maxInspectorsPerSession
            let perClient = app.configuration.maxInspectorsPerClient
            let third = try await app.get("/inspect/events?window=300", cookie: cookie)
            #expect(third.status == 429, "\(third)")
            #expect(
                third.text.contains("This browser has \(perSession) stream inspectors open, the most allowed"),
                "\(third.text)")
            #expect(third.header("Retry-After") == "30")
            // Another session on the same address: the rest of the address's, then it is at its cap.
            let other = try await app.newSession()
            for _ in perSession..<perClient {
                open.append(try await app.openEventStream("/inspect/events?window=300", cookie: other))
            }
            let fifth = try await app.get("/inspect/events?window=300", cookie: try await app.newSession())
            #expect(fifth.status == 429, "\(fifth)")
            #expect(
                fifth.text.contains("This network address has \(perClient) stream inspectors open"), "\(fifth.text)")
            // A customer's own page stream is not an inspector: it still opens.
            let tab = try await app.openEventStream(cookie: other)
            #expect(tab.head.status.code == 200)
            await tab.close()
            for inspector in open { await inspector.close() }
        }
    }

    @Test("one session's inspectors of one window share one diagram, drawn only when something moved")
    func oneDiagramPerSessionAndViewDrawnOnlyWhenItMoved() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let first = try await app.openEventStream("/inspect/events?window=300", cookie: cookie)
            let second = try await app.openEventStream("/inspect/events?window=300", cookie: cookie)
            for inspector in [first, second] {
                _ = try await inspector.nextEvent()
                _ = try await inspector.nextPatch()
            }
            #expect(app.services.inspectorFeeds.count == 1, "one diagram for both")

            // Idle, with marbles in the window: looking costs no drawing.
            let before = app.services.inspectorFeeds.drawings
            for _ in 0..<4 { try await Self.redraw(app) }
            #expect(app.services.inspectorFeeds.drawings == before)

            // A change: drawn once, and both streams get the same patch.
            #expect(try await app.scriptPost(form: "color=sky", cookie: cookie).status == 204)
            try await Self.redraw(app)
            let (firstID, firstPatch) = try await first.nextPatch()
            let (secondID, secondPatch) = try await second.nextPatch()
            #expect(firstID == secondID)
            #expect(firstPatch == secondPatch)
            #expect(firstPatch.html(InspectController.target)?.contains("change(color: Sky)") == true)
            #expect(app.services.inspectorFeeds.drawings == before + 1)
            await first.close()
            await second.close()
        }
    }

    @Test("once its lanes are drawn, a change sends the inspector its new marbles and the time, not the diagram")
    func aChangeSendsItsMarblesNotTheDiagram() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let target = InspectController.target
            let inspector = try await app.openEventStream("/inspect/events?window=10", cookie: cookie)
            _ = try await inspector.nextEvent()
            _ = try await inspector.nextSentPatch()
            // Eight changes half a second apart: the first draws the lanes, whole; then each sends
            // its marbles, each standing alone (10 s across 760 pixels: half a second is 38).
            for (index, color) in ["sky", "dusk", "natural", "sky", "dusk", "natural", "sky", "dusk"].enumerated() {
                #expect(try await app.scriptPost(form: "color=\(color)", cookie: cookie).status == 204)
                try await Self.redraw(app)
                let edits = try await inspector.nextSentPatch().patch.fragments.first?.edits
                #expect(
                    (edits == nil) == (index == 0),
                    "change \(index + 1): \(edits.map { "\($0.count) edits" } ?? "whole")")
            }

            #expect(try await app.scriptPost(form: "color=natural", cookie: cookie).status == 204)
            try await Self.redraw(app)
            let sent = try await inspector.nextSentPatch().patch
            let edits = try #require(sent.fragments.first { $0.target == target }?.edits, "\(sent)")
            #expect(edits.filter(\.isPut).count == 3, "one marble on each lane: \(edits.map(\.id))")
            #expect(edits.contains { $0.html?.contains("change(color: Natural)") == true })
            #expect(edits.last?.id == MarbleDiagram.clockID)

            // Applied, the edits read as the diagram drawn now (but for the marbles' shift, which
            // the page's script moves along itself); and they are a small part of it.
            let later = try await app.openEventStream("/inspect/events?window=10", cookie: cookie)
            _ = try await later.nextEvent()
            let whole = try #require(try await later.nextSentPatch().patch.html(target))
            let unshifted = { (html: String) in html.replacing(#/ transform="translate\([-0-9. ]+\)"/#, with: "") }
            #expect(unshifted(inspector.shown.html(target) ?? "") == unshifted(whole))
            let bytes = edits.reduce(0) { $0 + $1.id.utf8.count + ($1.html?.utf8.count ?? 0) }
            #expect(bytes * 4 < whole.utf8.count, "\(bytes) bytes of edits against a diagram of \(whole.utf8.count)")
            await later.close()
            await inspector.close()
        }
    }

    @Test("a trace is encoded and compressed once per recorded step, however often it is asked for")
    func traceEncodedOncePerStep() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            #expect(try await app.get("/inspect", cookie: cookie).status == 200)
            #expect(try await app.scriptPost(form: "shape=longV", cookie: cookie).status == 204)
            let gzip = [("Accept-Encoding", "gzip")]
            let first = try await app.get("/inspect/trace", cookie: cookie, headers: gzip)
            #expect(first.status == 200)
            let encoded = app.services.traces.encodingCount
            for _ in 0..<5 {
                let again = try await app.get("/inspect/trace", cookie: cookie, headers: gzip)
                #expect(again.body == first.body)
                #expect(again.header("Content-Encoding") == first.header("Content-Encoding"))
            }
            #expect(try await app.get("/inspect/trace", cookie: cookie).status == 200)
            #expect(app.services.traces.encodingCount == encoded, "asked again: nothing encoded")
            // A new step is a new trace.
            #expect(try await app.scriptPost(form: "color=dusk", cookie: cookie).status == 204)
            let newer = try await app.get("/inspect/trace", cookie: cookie)
            #expect(newer.text.contains("dusk"))
            #expect(app.services.traces.encodingCount == encoded + 1)
        }
    }
}
