/// The wood of the fingerboard glued onto the neck.
public enum FretboardWood: String, GuitarOption {
    case rosewood, birdseyeMaple, ebony, blackLimba

    public static let field = GuitarField.fretboard

    public var name: String {
        switch self {
        case .rosewood: "Rosewood"
        case .birdseyeMaple: "Birdseye Maple"
        case .ebony: "Ebony"
        case .blackLimba: "Black Limba"
        }
    }

    public var price: Money {
        switch self {
        case .rosewood: .dollars(0)
        case .birdseyeMaple: .dollars(80)
        case .ebony: .dollars(100)
        case .blackLimba: .dollars(120)
        }
    }
}
