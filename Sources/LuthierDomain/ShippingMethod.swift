/// How a finished guitar reaches its owner, in the order the checkout lists them.
public enum ShippingMethod: String, CaseIterable, Hashable, Sendable, Codable {
    case pickup, ground, express

    public var name: String {
        switch self {
        case .pickup: "Pickup"
        case .ground: "Ground"
        case .express: "Express"
        }
    }

    public var deliveryTime: String {
        switch self {
        case .pickup: "As soon as ready"
        case .ground: "2-6 weeks"
        case .express: "1 week"
        }
    }

    public var price: Money {
        switch self {
        case .pickup: .dollars(0)
        case .ground: .dollars(100)
        case .express: .dollars(250)
        }
    }
}
