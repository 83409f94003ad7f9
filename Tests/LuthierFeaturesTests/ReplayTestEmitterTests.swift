import LuthierDomain
import Testing

@testable import LuthierFeatures

/// The tests `luthier replay --emit-test` writes: the one emitted from a session recorded over
/// HTTP (`Replayed/ReplayedRecordedSession.swift`, kept equal to what the emitter writes by the
/// web tests) passes as recorded, and fails once its reducer is changed.
@Suite struct ReplayTestEmitterTests {
    /// A reducer that does what `base` does, then `alter`s the state it led to.
    struct Altered<Base: Reducer>: Reducer {
        let base: Base
        let alter: @Sendable (inout Base.State) -> Void

        func reduce(into state: inout Base.State, action: Base.Action) throws(Base.Refusal) -> Effect<Base.Action> {
            let effect = try base.reduce(into: &state, action: action)
            alter(&state)
            return effect
        }
    }

    @Test("the emitted test fails at the step a changed builder reducer no longer reproduces")
    func aChangedBuilderFails() async throws {
        await withKnownIssue("the builder now paints every guitar dusk") {
            try await ReplayedRecordedSession.build1 { context in
                Altered(base: ReplayedReducers.build(context)) { $0.guitar.color = .dusk }
            }
        }
    }

    @Test("the emitted test fails when a changed cart reducer takes what was refused")
    func aChangedRefusalFails() async throws {
        await withKnownIssue("the cart now takes any code as the band's") {
            try await ReplayedRecordedSession.cart2 { context in
                CartFeature(
                    discounts: context.discounts.map { DiscountCode(code: "STAFF50", percent: $0.percent) }
                        + context.discounts,
                    now: context.now)
            }
        }
    }

    @Test("the suite is named after the trace's file, and the trace's text cannot end its raw string")
    func namesAndFences() throws {
        #expect(ReplayTestEmitter.suiteName("/tmp/luthier-trace.json") == "ReplayedLuthierTrace")
        #expect(ReplayTestEmitter.suiteName("bug 42 (café).json") == "ReplayedBug42Caf")
        #expect(ReplayTestEmitter.fenceLength(###"{"x": "a\"## b"}"###) == 3)
        // A file's name cannot end the suite's title early.
        let named = try ReplayTestEmitter.source(of: SessionTrace(steps: [], shopCodes: []), file: #"a"); x(\.json"#)
        #expect(named.contains(#"@Suite("a\"); x(\\.json: the recorded session, replayed")"#), "\(named)")
        #expect(ReplayTestEmitter.fenceLength(##"{"x": "#"}"##) == 2)
        let source = try ReplayTestEmitter.source(of: SessionTrace(steps: [], shopCodes: []), file: "t.json")
        #expect(
            source.hasSuffix(
                ##"    static let trace = #"{"discounts":[],"dropped":0,"format":1,"steps":[]}"#"## + "\n}\n"))
    }
}

extension ReplayTestEmitterTests {
    /// A builder's two changes recorded with a pause between them: the second's state before is
    /// not the state the first led to.
    static func pausedTrace() throws -> SessionTrace {
        var sky = Guitar.standard
        sky.color = .sky
        var dusk = sky
        dusk.color = .dusk
        var longV = dusk
        longV.shape = .longV
        func step(_ number: Int, _ change: GuitarChange, from before: Guitar, to after: Guitar) -> TraceStep {
            var step = TraceStep(
                store: BuildFeature.traceName, instance: 1, at: .seconds(number), date: LuthierEnvironment.testNow,
                origin: .input, action: BuildAction.change(change), before: BuildState(guitar: before),
                after: BuildState(guitar: after), refusal: nil)
            step.number = number
            return step
        }
        let steps = [
            step(1, GuitarChange(color: .sky), from: .standard, to: sky),
            // Dusk was chosen while nothing recorded.
            step(2, GuitarChange(shape: .longV), from: dusk, to: longV),
        ]
        return try SessionTrace(json: SessionTrace(steps: steps, shopCodes: []).json())
    }

    @Test("where the recording paused, the emitted test starts the store again from the recorded state")
    func aPausedRecordingStartsAgain() async throws {
        let trace = try Self.pausedTrace()
        let source = try ReplayTestEmitter.source(of: trace, file: "paused.json")
        #expect(source.contains("// The recording paused here: the store starts again from the state before step 2."))
        #expect(source.contains(#"trace: trace, store: "build", instance: 1, from: 2, reducer: make)"#))
        // What those lines do: each part replays as recorded.
        let json = String(decoding: try trace.json(), as: UTF8.self)
        var first = try TraceTestStore(trace: json, store: "build", instance: 1, reducer: ReplayedReducers.build)
        try first.input(1)
        await first.finish()
        var resumed = try TraceTestStore(
            trace: json, store: "build", instance: 1, from: 2, reducer: ReplayedReducers.build)
        try resumed.input(2)
        await resumed.finish()
    }
}
