/// The tonewood the body is cut from.
public enum BodyWood: String, GuitarOption {
    case mahogany, blackLimba, swampAsh, koa

    public static let field = GuitarField.body

    public var name: String {
        switch self {
        case .mahogany: "Mahogany"
        case .blackLimba: "Black Limba"
        case .swampAsh: "Swamp Ash"
        case .koa: "Koa"
        }
    }

    public var price: Money {
        switch self {
        case .mahogany: .dollars(0)
        case .blackLimba: .dollars(150)
        case .swampAsh: .dollars(80)
        case .koa: .dollars(100)
        }
    }
}
