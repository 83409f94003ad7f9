/// The priced order of one guitar with one shipping method in one currency: every amount the
/// checkout shows and the order stores, converted once, in integer minor units.
public struct Quote: Hashable, Sendable {
    public var basePrice: Money
    public var additions: Money
    public var shipping: Money
    public var total: Money

    public init(guitar: Guitar, shipping: ShippingOption, rate: ExchangeRate) {
        basePrice = rate.convert(Guitar.basePrice)
        additions = rate.convert(guitar.additions)
        self.shipping = rate.convert(shipping.price)
        // The total is the sum of the shown rows, so the page always adds up.
        total = basePrice + additions + self.shipping
    }
}
