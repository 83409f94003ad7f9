import LuthierFeatures
import ServerMachinery
import Testing

@testable import LuthierWeb

/// How the inspector draws marbles so that they can be read: each value's short label beside it,
/// and a run too dense to draw apart as one marble with its count and its values.
@Suite struct MarbleDiagramTests {
    @Test(arguments: [
        ("change(color: Sky)", "color: Sky"),
        ("version 4398046511110, 813 bytes", "813 bytes"),
        ("Sky Casual with Mahogany body", "Sky Casual …"),
        ("startOver", "startOver"),
        ("load()", "load()"),
    ])
    func aValueSaysAtAGlanceWhatItIs(text: String, short: String) {
        #expect(MarbleDiagram.short(text) == short)
    }

    @Test func valuesTooCloseToDrawApartAreOneMarbleWithTheirCountAndValues() {
        let clicks = (0..<5).map { index in
            TapEvent(
                lane: "checkout.input", kind: .value, text: "currencyChosen(\(index))",
                at: .milliseconds(100 * index), cause: index + 1)
        }
        let later = TapEvent(lane: "checkout.input", kind: .value, text: "orderTapped", at: .seconds(200), cause: 6)
        let view = MarbleDiagram(
            events: clicks + [later], window: .seconds(300), now: .seconds(300), selected: 3
        ).view
        #expect(view.marbles.count == 2)
        let run = view.marbles[0]
        #expect(run.figure.contains(#"class="marble-count">5</text>"#))
        #expect(run.cause == nil && run.href == nil, "five changes' run selects none of them")
        #expect(run.isCaused, "the selected change is in the run")
        #expect(run.label.hasPrefix("checkout.input: 5 values from 0.000 s to 0.400 s: currencyChosen(0); "))
        #expect(run.short?.text == "0 …")
        let alone = view.marbles[1]
        #expect(alone.figure.contains("marble-value") && alone.cause == 6 && alone.short?.text == "orderTapped")
        // Labels take turns above and below the lane by change: the run's first (1) below, 6 above.
        #expect((run.short?.y ?? 0) > run.y && (alone.short?.y ?? 0) < alone.y)
    }

    @Test func changesSecondsApartAreDrawnApart() {
        let events = (0..<3).map { index in
            TapEvent(lane: "build.input", kind: .value, text: "change(\(index))", at: .seconds(2 * index), cause: 1)
        }
        let marbles = MarbleDiagram(events: events, window: .seconds(10), now: .seconds(10)).view.marbles
        #expect(marbles.allSatisfy { $0.figure.contains("marble-value") })
        #expect(marbles.map(\.short?.text) == ["0", "1", "2"])
    }

    @Test func theDrawingCarriesEachMarblesLaneCountAndLabel() async throws {
        let renderer = try await PageRenderer(
            directory: TestApp.repositoryRoot.appendingPathComponent("Templates").path)
        let events = (0..<3).map { index in
            TapEvent(lane: "cart.input", kind: .value, text: "add(\(index))", at: .milliseconds(10 * index), cause: 4)
        }
        let svg = renderer.render(
            MarbleDiagram(events: events, window: .seconds(60), now: .seconds(1)).view,
            template: "fragments/inspector-lanes")
        #expect(svg.contains(#"data-cause="4" data-lane="0""#), "\(svg)")
        #expect(svg.contains(#"class="marble-count">3</text>"#), "\(svg)")
        #expect(svg.contains(#"class="marble-label">0 …</text>"#), "\(svg)")
    }

    @Test func aMarblesPlaceIsItsInstantSoLaterOnlyTheClockAndWhatCameAndWentChange() throws {
        let events = (0..<3).map { index in
            TapEvent(lane: "build.input", kind: .value, text: "change(\(index))", at: .seconds(2 * index), cause: 1)
        }
        let earlier = MarbleDiagram(events: events, window: .seconds(10), now: .seconds(6)).view
        let later = MarbleDiagram(events: events, window: .seconds(10), now: .seconds(9)).view
        // The same marbles where they were; the group is shifted by the time between (3 s of 10
        // across 760 pixels).
        #expect(later.marbles == earlier.marbles)
        #expect(earlier.shift == "474.0" && later.shift == "246.0")
        let render = { (marble: MarbleDiagram.View.Marble) in marble.id }
        let clock = { (clock: MarbleDiagram.View.Clock) in "\(clock.now)" }
        let idle = try #require(later.edits(from: earlier, marble: render, clock: clock))
        #expect(idle == [.replace(id: MarbleDiagram.clockID, html: "9000")], "only the time")

        // One came, and the oldest left the window: one put and one removal, then the time.
        let next = MarbleDiagram(
            events: events + [TapEvent(lane: "build.input", kind: .value, text: "change(3)", at: .seconds(10))],
            window: .seconds(10), now: .seconds(10.5)
        ).view
        let edits = try #require(next.edits(from: later, marble: render, clock: clock))
        #expect(
            edits == [
                .remove(id: "marble-build.input-0-value"),
                .put(
                    id: "marble-build.input-10000-value", html: "marble-build.input-10000-value",
                    after: "marble-build.input-4000-value"),
                .replace(id: MarbleDiagram.clockID, html: "10500"),
            ])
        // A new lane: the diagram goes whole.
        let lane = MarbleDiagram(
            events: events + [TapEvent(lane: "build.state", kind: .value, text: "state", at: .seconds(10))],
            window: .seconds(10), now: .seconds(10)
        ).view
        #expect(lane.edits(from: later, marble: render, clock: clock) == nil)
    }
}
