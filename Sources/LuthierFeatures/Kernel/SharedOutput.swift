import Synchronization

/// A screen's output as a function of its state, computed once per state however many readers ask:
/// the seeds' `map` followed by `share(replay: 1)`. A full page render and the stream of changes
/// read the same value, and a state equal to the last one costs a comparison, not a render.
public final class SharedOutput<State: Sendable & Equatable, Output: Sendable & Equatable>: Sendable {
    public typealias Outputs = AsyncMapSequence<AsyncStream<State>, Output>

    private let transform: @Sendable (State) -> Output
    private let latest: Mutex<(state: State, output: Output)>

    public init(initial state: State, _ transform: @escaping @Sendable (State) -> Output) {
        self.transform = transform
        latest = Mutex((state, transform(state)))
    }

    /// The output of `state`: the kept one if `state` is the last one asked about.
    public func output(for state: State) -> Output {
        if let kept = latest.withLock({ $0.state == state ? $0.output : nil }) { return kept }
        let output = transform(state)
        latest.withLock { $0 = (state, output) }
        return output
    }

    /// The outputs of `states`. The states come from a `Store`, which already
    /// leaves out a state equal to the one before (`removeDuplicates` on the state), so no output is
    /// compared again here: a reader would have to keep a copy of the last output to do it, and a
    /// session's driver keeps its own for its diff.
    public func outputs(of states: AsyncStream<State>) -> Outputs {
        states.map { [self] in output(for: $0) }
    }
}
