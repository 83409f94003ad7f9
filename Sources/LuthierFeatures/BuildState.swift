import LuthierDomain

/// What the builder remembers between actions.
public struct BuildState: Hashable, Sendable {
    public var guitar: Guitar

    public init(guitar: Guitar = .standard) {
        self.guitar = guitar
    }

    /// The pure step of the builder's fold (`scan`): the next state from the previous one and an
    /// action, with no effects, so that it can be tested exhaustively and replayed.
    public static func reduce(_ state: BuildState, _ action: BuildAction) -> BuildState {
        var next = state
        switch action {
        case .change(let change):
            next.guitar = state.guitar.applying(change)
        case .startOver:
            next.guitar = .standard
        }
        return next
    }
}
