/// What the three parallel workshop calls return for an order of one or more guitars: the zip of
/// availability, estimate and shipping options, with an id that makes ordering it idempotent.
///
/// The builder checks out its one guitar; the cart checks out all its lines with its discount.
/// Either way the lines are fixed here, so the customer orders exactly what was priced.
public struct Checkout: Hashable, Sendable, Codable {
    /// Where the checkout was started, and so what ordering it empties.
    public enum Source: String, Hashable, Sendable, Codable {
        case builder, cart
    }

    public var id: String
    public var source: Source
    public var lines: [CheckoutLine]
    /// One estimate for the whole order: the longest of its guitars'.
    public var estimate: BuildEstimate
    public var shippingOptions: [ShippingOption]
    /// The cart's code, if it had a valid one when the checkout began.
    public var discount: DiscountCode?

    public init(
        id: String, source: Source, lines: [CheckoutLine], estimate: BuildEstimate, shippingOptions: [ShippingOption],
        discount: DiscountCode? = nil
    ) {
        self.id = id
        self.source = source
        self.lines = lines
        self.estimate = estimate
        self.shippingOptions = shippingOptions
        self.discount = discount
    }

    /// The order is available only if every line is; otherwise it names every missing wood once.
    public var availability: Availability {
        var missing: [String] = []
        var isAvailable = true
        for case .unavailable(let woods) in lines.map(\.availability) {
            // A line the workshop cannot build makes the order unavailable even if it names no wood.
            isAvailable = false
            for wood in woods where !missing.contains(wood) { missing.append(wood) }
        }
        return isAvailable ? .available : .unavailable(missing: missing)
    }

    public var cartLines: [CartLine] { lines.map(\.cartLine) }

    public var guitarCount: Int { lines.reduce(0) { $0 + $1.quantity } }
}

/// One configuration in a checkout, how many of it, and whether the workshop can build them.
public struct CheckoutLine: Hashable, Sendable, Codable {
    public var guitar: Guitar
    public var quantity: Int
    public var availability: Availability

    public init(guitar: Guitar, quantity: Int, availability: Availability) {
        self.guitar = guitar
        self.quantity = quantity
        self.availability = availability
    }

    public var cartLine: CartLine { CartLine(guitar: guitar, quantity: quantity) }
}
