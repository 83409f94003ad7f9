/// The finish of the guitar body.
public enum Color: String, GuitarOption {
    case natural, sky, dusk, earth

    public static let field = GuitarField.color

    public var name: String {
        switch self {
        case .natural: "Natural"
        case .sky: "Sky"
        case .dusk: "Dusk"
        case .earth: "Earth"
        }
    }

    public var price: Money {
        switch self {
        case .natural, .dusk: .dollars(0)
        case .sky: .dollars(150)
        case .earth: .dollars(50)
        }
    }
}
