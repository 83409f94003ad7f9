import Foundation
import Testing

@testable import LuthierFeatures

/// One store of a recorded session, replayed through `TestStore` step by step: what an emitted
/// test (`luthier replay TRACE --emit-test`, `ReplayTestEmitter`) is written in.
///
/// The store starts from the state before the store's first recorded step. Each step is sent as
/// it was applied, with the replay's clock and date set to the step's, and the state it leads to,
/// redacted as a trace keeps it, must be the recorded one; a refused step must be refused in the
/// same words and change nothing. The reducer's effects are not performed (`WithoutEffects`):
/// what they sent back is fed as the recorded answers.
struct TraceTestStore<R: Reducer> where R.State: Traceable, R.Action: Traceable & Equatable {
    private var store: TestStore<WithoutEffects<R>>
    private let steps: [Int: TraceStep]
    private let clock: ReplayClock
    private let date: SessionReplay.ReplayDate

    /// - Parameters:
    ///   - trace: the trace's JSON, as `GET /inspect/trace` wrote it.
    ///   - name: the store's name in the trace (`build`), and `instance` which of that name.
    ///   - start: the step whose state before is the store's first (its first step, or the first
    ///     after a pause in the recording, where the state replayed so far is not the recorded one).
    ///   - make: builds the reducer from the replay's clock, date and the trace's codes.
    init(
        trace json: String, store name: String, instance: Int, from start: Int? = nil,
        reducer make: @escaping @Sendable (ReplayContext) -> R
    ) throws {
        let trace = try SessionTrace(json: Data(json.utf8))
        let own = trace.steps.filter { $0.store == name && $0.instance == instance && $0.number >= (start ?? 0) }
        guard let first = own.first, let initial = first.before as? R.State else {
            throw TraceTestStoreError("the trace has no step of \(name)#\(instance) whose state is this reducer's")
        }
        let clock = ReplayClock()
        let date = SessionReplay.ReplayDate()
        date.set(first.date)
        let context = ReplayContext(
            environment: .replaying(on: clock, now: date.read), discounts: trace.discounts, now: date.read)
        self.clock = clock
        self.date = date
        steps = Dictionary(uniqueKeysWithValues: own.map { ($0.number, $0) })
        store = TestStore(initialState: initial, reducer: WithoutEffects(base: make(context)))
    }

    /// Sends recorded input `number` (a form post's action).
    mutating func input(_ number: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try apply(number, .input, sourceLocation)
    }

    /// Feeds recorded answer `number` (an action an effect sent back).
    mutating func answer(_ number: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        try apply(number, .effect, sourceLocation)
    }

    /// Ends the store; nothing may have come back unasked.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        await store.finish(sourceLocation: sourceLocation)
    }

    private mutating func apply(_ number: Int, _ origin: TraceStep.Origin, _ location: SourceLocation) throws {
        guard let step = steps[number], step.origin == origin, let action = step.action as? R.Action else {
            throw TraceTestStoreError("step \(number) is not an \(origin.rawValue) of this store in the trace")
        }
        clock.set(to: step.at)
        date.set(step.date)
        if let refusal = step.refusal {
            store.send(action, refusedAs: refusal, sourceLocation: location)
        } else if let recorded = step.after as? R.State {
            do {
                try store.send(action, leadingTo: recorded, sourceLocation: location)
            } catch {
                Issue.record("step \(number), \(action), was refused: \(error)", sourceLocation: location)
            }
        }
    }
}

/// A trace that does not hold what an emitted test asks of it.
struct TraceTestStoreError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A reducer whose effects are dropped: a replay feeds what they sent back from the recording.
struct WithoutEffects<Base: Reducer>: Reducer {
    let base: Base

    func reduce(into state: inout Base.State, action: Base.Action) throws(Base.Refusal) -> Effect<Base.Action> {
        _ = try base.reduce(into: &state, action: action)
        return .none
    }
}
