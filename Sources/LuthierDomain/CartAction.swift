/// Everything that can happen to a cart: the input its reducer folds (`scan`).
public enum CartAction: Hashable, Sendable, Codable {
    /// Adds one of this guitar; the same configuration again raises its line's quantity.
    case add(Guitar)
    case increment(lineID: String)
    /// Lowers a line's quantity; a line of one is removed.
    case decrement(lineID: String)
    case remove(lineID: String)
    case clear

    /// The analytics name of the action.
    public var name: String {
        switch self {
        case .add: "add"
        case .increment: "increment"
        case .decrement: "decrement"
        case .remove: "remove"
        case .clear: "clear"
        }
    }

    /// The configuration the action is about, as its line id ("longV-sky-koa-ebony"); nil for
    /// `clear`, which is about the whole cart.
    public var configuration: String? {
        switch self {
        case .add(let guitar): CartLine.id(for: guitar)
        case .increment(let lineID), .decrement(let lineID), .remove(let lineID): lineID
        case .clear: nil
        }
    }
}
