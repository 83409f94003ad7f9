/// A state a trace keeps, behind one reference: a step's state after and the next step's state
/// before are one copy, and each step holds it in 8 bytes.
///
/// Every session's flight recorder keeps its last steps, each with the states around it. Held as
/// `any Traceable`, a state larger than three words (the builder's is 51 bytes) sits in a box
/// of its own and costs each step holding it a 40-byte container besides; here the state is kept
/// inline in the reference's own allocation, and what it weighs is worked out once.
public struct TracedState: Sendable {
    private let box: TracedStateBox

    public init<State: Traceable>(_ state: State) {
        box = Box(state)
    }

    /// The state, type-erased (made on each read: read it where a step is shown, not while one is
    /// recorded).
    public var value: any Traceable { box.value }

    /// About how many bytes the state keeps alive (`Traceable.traceBytes`).
    public var traceBytes: Int { box.traceBytes }

    /// The state with its weight after it: 32 bits are room enough for a state's weight, and
    /// after the builder's 51-byte state they fit in its last word's padding, so its allocation
    /// is 72 bytes rather than the 80 a whole word there would make it (a malloc chunk of 80
    /// rather than 96, in every step of every session's flight recorder).
    /// `@unchecked Sendable` as its base class is: final, with only `let`s of `Sendable` types.
    private final class Box<State: Traceable>: TracedStateBox, @unchecked Sendable {
        let state: State
        let weight: UInt32

        init(_ state: State) {
            self.state = state
            weight = UInt32(clamping: state.traceBytes)
        }

        override var value: any Traceable { state }
        override var traceBytes: Int { Int(weight) }
    }
}

/// What a `TracedState` holds: a class rather than a protocol, so that the reference is one word
/// (a class-bound existential is two: the reference and its witness table).
///
/// `@unchecked Sendable` because a class that others inherit from cannot be checked: it has no
/// stored properties, and its one subclass (`TracedState.Box`) has only `let`s of `Sendable`
/// types (`Traceable` is `Sendable`) and is final, so nothing in it can change once made.
private class TracedStateBox: @unchecked Sendable {
    var value: any Traceable { fatalError("TracedStateBox is abstract: TracedState.Box overrides it.") }
    var traceBytes: Int { fatalError("TracedStateBox is abstract: TracedState.Box overrides it.") }
}
