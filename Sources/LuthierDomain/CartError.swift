/// Why a cart action was refused; the cart stays as it was.
public enum CartError: Error, Hashable, Sendable {
    case unknownLine(id: String)
    case quantityLimit(maximum: Int)
    case lineLimit(maximum: Int)
    case guitarLimit(maximum: Int)

    public var message: String {
        switch self {
        case .unknownLine(let id):
            "There is no line '\(id)' in the cart."
        case .quantityLimit(let maximum):
            "A cart holds at most \(maximum) of one guitar; for more, please contact the workshop."
        case .lineLimit(let maximum):
            "A cart holds at most \(maximum) different guitars; remove one before adding another."
        case .guitarLimit(let maximum):
            "A cart holds at most \(maximum) guitars in all; for more, please contact the workshop."
        }
    }
}
