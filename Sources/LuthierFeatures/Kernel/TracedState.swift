/// A state a trace keeps, behind one reference: a step's state after and the next step's state
/// before are one copy, and each step holds it in 16 bytes.
///
/// Every session's flight recorder keeps its last steps, each with the states around it. Held as
/// `any Traceable`, a state larger than three words (the builder's is 51 bytes) sits in a box
/// of its own and costs each step holding it a 40-byte container besides; here the state is kept
/// inline in the reference's own allocation, and what it weighs is worked out once.
public struct TracedState: Sendable {
    private let box: any TracedStateBox

    public init<State: Traceable>(_ state: State) {
        box = Box(state)
    }

    /// The state, type-erased (made on each read: read it where a step is shown, not while one is
    /// recorded).
    public var value: any Traceable { box.value }

    /// About how many bytes the state keeps alive (`Traceable.traceBytes`).
    public var traceBytes: Int { box.traceBytes }

    private final class Box<State: Traceable>: TracedStateBox {
        let state: State
        let traceBytes: Int

        init(_ state: State) {
            self.state = state
            traceBytes = state.traceBytes
        }

        var value: any Traceable { state }
    }
}

private protocol TracedStateBox: AnyObject, Sendable {
    var value: any Traceable { get }
    var traceBytes: Int { get }
}
