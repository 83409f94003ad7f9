import Foundation

/// One action a store applied while its session was recorded: what it was, where it came from,
/// the state before and after it (or the refusal that left the state as it was), and when.
///
/// The values are kept as they are (redacted), not as text: a trace is folded again by
/// `luthier replay`. Type-erased, so that one ring holds the steps of every store of a session.
public struct TraceStep: Sendable {
    /// Whether the action came in (a form post) or came back from the store's own work.
    public enum Origin: String, Sendable, Hashable, Codable {
        case input, effect
    }

    /// The step's number in its session's recording (1, 2, …; set when kept), which stays the same
    /// while older steps leave the ring: the inspector's scrubber names a moment by it.
    public internal(set) var number = 0
    /// The reducer's name: `build`, `cart` or `checkout`.
    public let store: String
    /// Which store of that name (a session makes a new checkout store for each checkout).
    public let instance: Int
    /// When, on the recorder's clock.
    public let at: Duration
    /// When, on the wall clock (what a reducer that reads the date, the cart's code expiry, saw).
    public let date: Date
    public let origin: Origin
    public let action: any Traceable
    public var before: any Traceable { keptBefore.value }
    /// The state the action led to; nil when it was refused.
    public var after: (any Traceable)? { keptAfter?.value }
    /// The states as kept: the state after is the next step's state before (see `TracedState`).
    let keptBefore: TracedState
    let keptAfter: TracedState?
    /// The reducer's refusal, as written by `String(describing:)`; nil when the action was applied.
    public let refusal: String?
    /// The input whose work this step was (`TapCause`), if any.
    public var cause: Int? = TapRecorder.currentCause

    public init(
        store: String, instance: Int, at: Duration, date: Date, origin: Origin, action: any Traceable,
        before: any Traceable, after: (any Traceable)?, refusal: String?
    ) {
        self.init(
            store: store, instance: instance, at: at, date: date, origin: origin, action: action,
            kept: TracedState(before), keptAfter: after.map { TracedState($0) }, refusal: refusal)
    }

    init(
        store: String, instance: Int, at: Duration, date: Date, origin: Origin, action: any Traceable,
        kept before: TracedState, keptAfter after: TracedState?, refusal: String?
    ) {
        self.store = store
        self.instance = instance
        self.at = at
        self.date = date
        self.origin = origin
        self.action = action
        keptBefore = before
        keptAfter = after
        self.refusal = refusal
    }

    /// About how many bytes the step keeps alive: what the trace budgets count.
    public var bytes: Int {
        TraceWeight.value + action.traceBytes + keptBefore.traceBytes + (keptAfter?.traceBytes ?? 0)
            + (refusal?.utf8.count ?? 0)
    }
}

/// Where a store writes its steps: its recorder, its name and its instance number.
///
/// Made only for a reducer whose actions and states are `Traceable` (the initializer says so), so
/// that `Store` itself stays generic over any reducer.
public struct StoreTrace<State: Sendable, Action: Sendable>: Sendable {
    let recorder: TapRecorder
    /// The state as a step keeps it: redacted, in a box of its own.
    private let keep: @Sendable (State) -> TracedState
    private let makeStep:
        @Sendable (TraceStep.Origin, Action, TracedState, TracedState?, String?, Duration, Date) -> TraceStep

    /// The state a store's last kept step led to, as the step keeps it, at the store's revision
    /// then. The next step's state before is that same state when the revision says so, and the
    /// two steps share one copy of it rather than each keeping its own: every session keeps its
    /// last steps (the flight recorder), so this halves what a change keeps. The store holds it.
    public struct Kept: Sendable {
        let revision: UInt64
        let state: TracedState
    }

    /// Records a step if the recorder keeps steps now, recording or as a flight recorder
    /// (nothing is copied or described otherwise). `revision` and `revisionAfter` are the store's
    /// before and after the action; `last` is what the store's previous step kept.
    func record(
        _ origin: TraceStep.Origin, _ action: Action, before: State, revision: UInt64, after: State?,
        revisionAfter: UInt64, last: inout Kept?, refusal: @autoclosure () -> String? = nil
    ) {
        guard recorder.keepsSteps else { return }
        let kept = last.flatMap { $0.revision == revision ? $0.state : nil } ?? keep(before)
        let keptAfter = after.map(keep)
        if let keptAfter { last = Kept(revision: revisionAfter, state: keptAfter) }
        recorder.record(makeStep(origin, action, kept, keptAfter, refusal(), recorder.now, recorder.date()))
    }
}

extension StoreTrace where State: Traceable, Action: Traceable {
    /// The trace of a new store named `store` (its instance number is the recorder's next).
    public init(_ recorder: TapRecorder, store: String) {
        self.recorder = recorder
        let instance = recorder.nextInstance()
        keep = { TracedState($0.redacted) }
        makeStep = { origin, action, before, after, refusal, at, date in
            TraceStep(
                store: store, instance: instance, at: at, date: date, origin: origin, action: action.redacted,
                kept: before, keptAfter: after, refusal: refusal)
        }
    }
}
