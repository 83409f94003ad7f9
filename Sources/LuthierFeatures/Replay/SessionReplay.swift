import Foundation
import LuthierDomain
import Synchronization

/// Folds a session's trace through the reducers again and says whether every step led to the
/// state it led to when it was recorded: `luthier replay`.
///
/// Each store starts from the state before its first step in the trace, and each action is
/// applied as the store applied it, on a `ReplayClock` set to the step's instant and with the
/// step's wall-clock date. The effects the reducers ask for are not performed: what the live work
/// sent back is in the trace already, as the `effect` steps that follow. So a replay is
/// deterministic, needs no workshop, no rates and no network, and checks the one thing the
/// reducers decide: the next state from a state and an action.
///
/// The reducers are values (`stores`), so a test can swap one for a changed copy and see the
/// replay catch it.
public struct SessionReplay: Sendable {
    /// How to replay each store of a trace, by name.
    public var stores: [String: ReplayedStore]

    public init(stores: [String: ReplayedStore]) {
        self.stores = stores
    }

    /// The shop's reducers: the builder, the cart and the checkout, as the live session runs them.
    public static let live = SessionReplay(stores: [
        BuildFeature.traceName: .reducer(ReplayedReducers.build),
        CartFeature.traceName: .reducer(ReplayedReducers.cart),
        CheckoutFeature.traceName: .reducer(ReplayedReducers.checkout),
    ])

    /// Replays `trace`, stopping at the first step whose outcome differs from the recorded one.
    public func replay(_ trace: SessionTrace) throws(ReplayError) -> ReplayVerdict {
        let clock = ReplayClock()
        let date = ReplayDate()
        let context = ReplayContext(
            environment: .replaying(on: clock, now: date.read), discounts: trace.discounts, now: date.read)
        var states: [StoreKey: any Traceable] = [:]
        var gaps = 0
        for (index, step) in trace.steps.enumerated() {
            guard let store = stores[step.store] else { throw .unknownStore(step.store, step: index + 1) }
            clock.set(to: step.at)
            date.set(step.date)
            let key = StoreKey(name: step.store, instance: step.instance)
            let outcome = try store.apply(step, states[key], context, index + 1)
            if outcome.resumedAfterGap { gaps += 1 }
            switch outcome.verdict {
            case .same(let state):
                states[key] = state
            case .differs(let path, let recorded, let replayed):
                return .differs(
                    ReplayDifference(
                        step: index + 1, of: trace.steps.count, store: key.description, origin: step.origin,
                        action: "\(step.action)", at: step.at, path: path, recorded: recorded, replayed: replayed))
            }
        }
        return .identical(
            steps: trace.steps.count, stores: states.keys.sorted().map(\.description), gaps: gaps)
    }

    struct StoreKey: Hashable, Comparable, CustomStringConvertible {
        let name: String
        let instance: Int
        var description: String { "\(name)#\(instance)" }
        static func < (lhs: Self, rhs: Self) -> Bool { lhs.instance < rhs.instance }
    }

    /// The date a replay's reducers read: the current step's.
    final class ReplayDate: Sendable {
        private let value = Mutex(Date(timeIntervalSince1970: 0))

        func set(_ date: Date) { value.withLock { $0 = date } }

        @Sendable func read() -> Date { value.withLock { $0 } }
    }
}

/// Each store's reducer as a replay builds it, by the store's name in a trace: what `live` replays
/// and what an emitted test (`ReplayTestEmitter`) names.
public enum ReplayedReducers {
    @Sendable public static func build(_ context: ReplayContext) -> BuildFeature {
        BuildFeature(environment: context.environment)
    }

    @Sendable public static func cart(_ context: ReplayContext) -> CartFeature {
        CartFeature(discounts: context.discounts, now: context.now)
    }

    @Sendable public static func checkout(_ context: ReplayContext) -> CheckoutFeature {
        CheckoutFeature(environment: context.environment, sessionKey: Order.redactedKey)
    }
}

/// What a replayed store's reducer is built from.
public struct ReplayContext: Sendable {
    /// The environment the reducers get: the replay's clock and date, and services that refuse
    /// every call (a replay performs no work).
    public let environment: LuthierEnvironment
    /// The codes the trace carries.
    public let discounts: [DiscountCode]
    public let now: @Sendable () -> Date
}

/// One store's replay: its reducer, applied to a step's action from the state the replay holds.
public struct ReplayedStore: Sendable {
    struct Outcome {
        enum Verdict {
            case same(any Traceable)
            /// The first difference: where in the state (a JSON path, or "refusal"), and the two
            /// values there.
            case differs(path: String, recorded: String, replayed: String)
        }

        var verdict: Verdict
        /// The state held did not match the step's state before: the recording paused in between
        /// (an inspector closed and opened again), so the replay went on from the recorded one.
        var resumedAfterGap: Bool
    }

    let apply: @Sendable (TraceStep, (any Traceable)?, ReplayContext, _ stepNumber: Int) throws(ReplayError) -> Outcome

    /// The replay of a store run by the reducer `make` builds.
    public static func reducer<R: Reducer>(_ make: @escaping @Sendable (ReplayContext) -> R) -> Self
    where R.State: Traceable, R.Action: Traceable {
        Self { (step, held, context, number) throws(ReplayError) -> Outcome in
            guard let action = step.action as? R.Action, let before = step.before as? R.State else {
                throw .malformed(step: number, "its action or state is not one of the \(step.store) store's")
            }
            var state = held.flatMap { $0 as? R.State } ?? before
            let resumed = held != nil && state != before
            if resumed { state = before }
            var next = state
            var refusal: String?
            do {
                _ = try make(context).reduce(into: &next, action: action)
            } catch {
                refusal = "\(error)"
            }
            next = next.redacted
            switch (step.after.flatMap { $0 as? R.State }, step.refusal) {
            case (let recorded?, nil):
                if let refusal {
                    return Outcome(
                        verdict: .differs(path: "refusal", recorded: "none", replayed: refusal),
                        resumedAfterGap: resumed)
                }
                guard recorded == next else {
                    let (path, was, now) = JSONDifference.first(recorded, next)
                    return Outcome(
                        verdict: .differs(path: path, recorded: was, replayed: now), resumedAfterGap: resumed)
                }
                return Outcome(verdict: .same(next), resumedAfterGap: resumed)
            case (nil, let recorded?):
                guard let refusal, refusal == recorded else {
                    return Outcome(
                        verdict: .differs(path: "refusal", recorded: recorded, replayed: refusal ?? "none"),
                        resumedAfterGap: resumed)
                }
                return Outcome(verdict: .same(state), resumedAfterGap: resumed)
            default:
                throw .malformed(step: number, "it has neither a state after nor a refusal")
            }
        }
    }
}

/// What a replay found.
public enum ReplayVerdict: Sendable, Equatable {
    /// Every step led where it led when recorded. `gaps`: places the recording had paused.
    case identical(steps: Int, stores: [String], gaps: Int)
    case differs(ReplayDifference)

    /// One line for a terminal.
    public var summary: String {
        switch self {
        case .identical(let steps, let stores, let gaps):
            "identical: \(steps) step\(steps == 1 ? "" : "s") over \(stores.isEmpty ? "no store" : stores.joined(separator: ", "))"
                + (gaps == 0 ? "" : "; the recording paused \(gaps) time\(gaps == 1 ? "" : "s")")
        case .differs(let difference): difference.summary
        }
    }
}

/// The first step whose replay did not lead where the recording did.
public struct ReplayDifference: Sendable, Equatable {
    public var step: Int
    public var of: Int
    /// `checkout#3`
    public var store: String
    public var origin: TraceStep.Origin
    public var action: String
    public var at: Duration
    /// Where the states differ first, as a path into the state's JSON (`.shownRate.currency`), or
    /// `refusal` when one refused and the other did not.
    public var path: String
    public var recorded: String
    public var replayed: String

    public var summary: String {
        let seconds = Double(at.milliseconds) / 1_000
        return "differs at step \(step) of \(of) (\(store), \(origin.rawValue) \(action) at \(seconds) s): "
            + "\(path) was \(recorded) when recorded, \(replayed) in the replay"
    }
}

/// Why a trace could not be replayed at all.
public enum ReplayError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownStore(String, step: Int)
    case malformed(step: Int, String)

    public var description: String {
        switch self {
        case .unknownStore(let name, let step): "Step \(step) names a store this luthier does not have: \(name)."
        case .malformed(let step, let why): "Step \(step) cannot be replayed: \(why)."
        }
    }
}

extension LuthierEnvironment {
    /// What a replay's reducers get: its clock and date, and services that refuse every call.
    static func replaying(on clock: ReplayClock, now: @escaping @Sendable () -> Date) -> LuthierEnvironment {
        LuthierEnvironment(
            clock: clock, now: now,
            workshop: WorkshopClient(
                availability: { _ in throw ReplayPerformsNoWork() }, estimate: { _ in throw ReplayPerformsNoWork() },
                shippingOptions: { _ in throw ReplayPerformsNoWork() },
                placeOrder: { _ in throw ReplayPerformsNoWork() },
                order: { _ in throw ReplayPerformsNoWork() }),
            exchangeRates: ExchangeRateClient { _ in throw ReplayPerformsNoWork() },
            sessions: SessionStore(
                load: { _ in throw ReplayPerformsNoWork() }, save: { _, _, _ in throw ReplayPerformsNoWork() },
                delete: { _ in throw ReplayPerformsNoWork() }, deleteUnused: { _, _ in throw ReplayPerformsNoWork() }),
            analytics: AnalyticsClient(
                record: { _ in throw ReplayPerformsNoWork() }, report: { _ in throw ReplayPerformsNoWork() }),
            makeID: { "replay" })
    }
}

/// What a service called during a replay throws: a replay performs no work.
struct ReplayPerformsNoWork: Error {}
