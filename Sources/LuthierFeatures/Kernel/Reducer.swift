/// A screen's logic as one pure function: given the state and an action (a form post's input, or
/// the result of an effect coming back), change the state and say what work to do next, as a value.
///
/// The counterpart of the seeds' `scan`: the state is the fold of every action so far, and since
/// the reducer only returns effects (it never performs them), it is tested by calling it.
public protocol Reducer<State, Action>: Sendable {
    associatedtype State: Sendable & Equatable
    associatedtype Action: Sendable

    func reduce(into state: inout State, action: Action) -> Effect<Action>
}
