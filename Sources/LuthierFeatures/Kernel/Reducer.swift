/// A screen's logic as one pure function: given the state and an action (a form post's input, or
/// the result of an effect coming back), change the state and say what work to do next, as a value.
///
/// The counterpart of the seeds' `scan`: the state is the fold of every action so far, and since
/// the reducer only returns effects (it never performs them), it is tested by calling it.
///
/// A reducer may refuse an input (`Refusal`, a sentence for the customer), which leaves the state
/// as it was: a cart line that does not exist, a code that has expired. Most refuse nothing
/// (`Never`), and sending to them needs no `try`.
public protocol Reducer<State, Action>: Sendable {
    associatedtype State: Sendable & Equatable
    associatedtype Action: Sendable
    associatedtype Refusal: Error = Never

    func reduce(into state: inout State, action: Action) throws(Refusal) -> Effect<Action>
}
