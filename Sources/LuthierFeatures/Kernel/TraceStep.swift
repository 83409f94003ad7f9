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
    public internal(set) var number: Int {
        get { Int(keptNumber) }
        set { keptNumber = UInt32(clamping: newValue) }
    }
    /// The reducer's name: `build`, `cart` or `checkout`.
    public let store: String
    /// Which store of that name (a session makes a new checkout store for each checkout).
    public var instance: Int { Int(keptInstance) }
    /// When, on the recorder's clock.
    public var at: Duration { .nanoseconds(keptAt) }
    /// When, on the wall clock (what a reducer that reads the date, the cart's code expiry, saw).
    public let date: Date
    public var origin: Origin { keptOrigin }
    public let action: any Traceable
    public var before: any Traceable { keptBefore.value }
    /// The state the action led to; nil when it was refused.
    public var after: (any Traceable)? { keptAfter?.value }
    /// The reducer's refusal, as written by `String(describing:)`; nil when the action was applied.
    public var refusal: String? {
        guard case .refused(let refusal) = outcome else { return nil }
        return refusal.text
    }
    /// The input whose work this step was (`TapCause`), if any.
    public var cause: Int? {
        get { keptCause == 0 ? nil : Int(keptCause) }
        set { keptCause = newValue.map { UInt32(clamping: $0) } ?? 0 }
    }

    /// The state the action led to, as kept: the next step's state before.
    var keptAfter: TracedState? {
        guard case .applied(let state) = outcome else { return nil }
        return state
    }

    // As kept: every session's flight recorder holds its last steps, so a step is laid out to
    // be small (104 bytes, 40 of them the action's container, with no allocation of its own).
    // The states are one reference each, the state after being the next step's state before (see
    // `TracedState`); the state after and the refusal share a word, as a step has one or the
    // other; a store's name is short enough to be kept in the string itself; the numbers are 32
    // bits (a session's inputs, steps and stores are counted from 1) and the time is in
    // nanoseconds.
    let keptBefore: TracedState
    private let outcome: Outcome
    private let keptAt: Int64
    private var keptNumber: UInt32 = 0
    private var keptCause = UInt32(clamping: TapRecorder.currentCause ?? 0)
    private let keptInstance: UInt32
    private let keptOrigin: Origin

    /// What the action led to, in one word: both cases hold a reference, and the enum tells them
    /// apart by the references' spare bits.
    private enum Outcome: Sendable {
        case applied(TracedState)
        case refused(Refusal)
    }

    /// A refusal's text, behind one reference.
    private final class Refusal: Sendable {
        let text: String
        init(_ text: String) { self.text = text }
    }

    public init(
        store: String, instance: Int, at: Duration, date: Date, origin: Origin, action: any Traceable,
        before: any Traceable, after: (any Traceable)?, refusal: String?
    ) {
        self.init(
            store: store, instance: instance, at: at, date: date, origin: origin, action: action,
            kept: TracedState(before), keptAfter: after.map { TracedState($0) }, refusal: refusal)
    }

    /// A step with the state it led to (`after`), or else refused (`refusal`, the empty text
    /// if none was given).
    init(
        store: String, instance: Int, at: Duration, date: Date, origin: Origin, action: any Traceable,
        kept before: TracedState, keptAfter after: TracedState?, refusal: String?
    ) {
        self.action = action
        keptBefore = before
        outcome = after.map(Outcome.applied) ?? .refused(Refusal(refusal ?? ""))
        self.store = store
        keptAt = at.nanoseconds
        self.date = date
        keptInstance = UInt32(clamping: instance)
        keptOrigin = origin
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
    /// The store's name and instance, kept here rather than captured by `makeStep`: a closure
    /// that captures nothing needs no allocation, and every session makes its stores.
    private let store: String
    private let instance: Int
    /// The state as a step keeps it: redacted, in a box of its own.
    private let keep: @Sendable (State) -> TracedState
    private let makeStep:
        @Sendable (String, Int, TraceStep.Origin, Action, TracedState, TracedState?, String?, Duration, Date) ->
            TraceStep

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
        // A refused action leaves the store at `revision`, in the state kept as this step's before.
        last = Kept(revision: keptAfter == nil ? revision : revisionAfter, state: keptAfter ?? kept)
        recorder.record(
            makeStep(store, instance, origin, action, kept, keptAfter, refusal(), recorder.now, recorder.date()))
    }
}

extension StoreTrace where State: Traceable, Action: Traceable {
    /// The trace of a new store named `store` (its instance number is the recorder's next).
    public init(_ recorder: TapRecorder, store: String) {
        self.recorder = recorder
        self.store = store
        instance = recorder.nextInstance()
        keep = { TracedState($0.redacted) }
        makeStep = { store, instance, origin, action, before, after, refusal, at, date in
            TraceStep(
                store: store, instance: instance, at: at, date: date, origin: origin, action: action.redacted,
                kept: before, keptAfter: after, refusal: refusal)
        }
    }
}
