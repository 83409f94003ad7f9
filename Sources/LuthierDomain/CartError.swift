/// Why a cart action was refused; the cart stays as it was.
public enum CartError: Error, Hashable, Sendable {
    case unknownLine(id: String)
    case quantityLimit(maximum: Int)

    public var message: String {
        switch self {
        case .unknownLine(let id):
            "There is no line '\(id)' in the cart."
        case .quantityLimit(let maximum):
            "A cart holds at most \(maximum) of one guitar; for more, please contact the workshop."
        }
    }
}
