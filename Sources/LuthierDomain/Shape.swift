/// The outline of the guitar body.
public enum Shape: String, GuitarOption {
    case casual, chunky, longV, sharpV

    public static let field = GuitarField.shape

    public var name: String {
        switch self {
        case .casual: "Casual"
        case .chunky: "Chunky"
        case .longV: "Long V"
        case .sharpV: "Sharp V"
        }
    }

    public var price: Money {
        switch self {
        case .casual, .chunky: .dollars(0)
        case .longV: .dollars(75)
        case .sharpV: .dollars(100)
        }
    }
}
