/// A way to ship, with its price in US dollars, as the workshop offers it for one checkout.
public struct ShippingOption: Hashable, Sendable, Codable {
    public var method: ShippingMethod
    public var price: Money

    public init(method: ShippingMethod, price: Money) {
        self.method = method
        self.price = price
    }

    /// The three options at their list prices (Pickup, Ground, Express).
    public static var standard: [ShippingOption] {
        ShippingMethod.allCases.map { ShippingOption(method: $0, price: $0.price) }
    }
}
