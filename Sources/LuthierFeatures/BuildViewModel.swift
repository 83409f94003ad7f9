import LuthierDomain

/// The builder screen as an input/output transformation, with no HTTP in it.
///
/// Inputs are `BuildAction`s (what a form post carries). They are folded, one at a time, over
/// the previous `BuildState` by the pure `BuildState.reduce` — a `scan` — and every state is mapped
/// to a `BuildOutput` that is published to all readers. Being an actor serialises the fold, so two
/// tabs posting at once can never lose each other's change, and `send` returns only once the change
/// is applied: a route that answers 204 or 303 after it has really taken effect.
public actor BuildViewModel {
    private var state: BuildState
    private let output: CurrentValueBroadcast<BuildOutput>

    public init(state: BuildState = BuildState()) {
        self.state = state
        output = CurrentValueBroadcast(BuildOutput(state: state))
    }

    /// Applies one input.
    public func send(_ action: BuildAction) {
        state = BuildState.reduce(state, action)
        output.send(BuildOutput(state: state))
    }

    /// The current state, for persistence and tests.
    public var currentState: BuildState { state }

    /// The output now, without waiting: what a full page render needs.
    public nonisolated var currentOutput: BuildOutput { output.value }

    /// The current output, then every distinct change; a slow reader sees only the newest.
    public nonisolated func outputs() -> AsyncStream<BuildOutput> {
        output.values()
    }

    /// How many readers follow the outputs (used to prove streams are released).
    public nonisolated var outputSubscriberCount: Int { output.subscriberCount }

    /// Ends every output sequence; used when the session that owns the model goes away.
    public nonisolated func close() {
        output.finish()
    }
}
