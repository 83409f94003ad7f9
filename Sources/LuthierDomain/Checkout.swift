/// What the three parallel workshop calls return for one guitar: the zip of availability,
/// estimate and shipping options, with an id that makes ordering it idempotent.
public struct Checkout: Hashable, Sendable {
    public var id: String
    public var guitar: Guitar
    public var availability: Availability
    public var estimate: BuildEstimate
    public var shippingOptions: [ShippingOption]

    public init(
        id: String, guitar: Guitar, availability: Availability, estimate: BuildEstimate,
        shippingOptions: [ShippingOption]
    ) {
        self.id = id
        self.guitar = guitar
        self.availability = availability
        self.estimate = estimate
        self.shippingOptions = shippingOptions
    }
}
