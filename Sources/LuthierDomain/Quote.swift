import Foundation

/// The priced order of one or more guitars with one shipping method in one currency: every amount
/// the checkout shows and the order stores, converted once, in integer minor units.
public struct Quote: Hashable, Sendable, Codable {
    /// The base price of every guitar in the order.
    public var basePrice: Money
    /// Every guitar's option surcharges.
    public var additions: Money
    /// What the discount code takes off the guitars (zero without one); shipping is not discounted.
    public var discount: Money
    public var shipping: Money
    public var total: Money

    public init(lines: [CartLine], shipping: ShippingOption, rate: ExchangeRate, discount code: DiscountCode? = nil) {
        let count = lines.reduce(0) { $0 + $1.quantity }
        let additionsInDollars = lines.reduce(Money.zero(.usd)) { $0 + $1.guitar.additions.times($1.quantity) }
        basePrice = rate.convert(Guitar.basePrice.times(count))
        additions = rate.convert(additionsInDollars)
        let guitars = basePrice + additions
        // The discount row is the percentage of the guitars, itself rounded half-to-even (taking
        // the rounded discounted amount away would round the row half-to-odd for odd amounts).
        discount =
            code.map { guitars.converted(to: guitars.currency, rate: Decimal($0.percent) / 100) }
            ?? .zero(rate.currency)
        self.shipping = rate.convert(shipping.price)
        // The total is the sum of the shown rows, so the page always adds up.
        total = guitars - discount + self.shipping
    }

    /// One guitar, as the builder checks it out.
    public init(guitar: Guitar, shipping: ShippingOption, rate: ExchangeRate) {
        self.init(lines: [CartLine(guitar: guitar, quantity: 1)], shipping: shipping, rate: rate)
    }

    /// A quote exactly as stored, amount by amount (the store reads orders back with it).
    public init(basePrice: Money, additions: Money, discount: Money, shipping: Money, total: Money) {
        self.basePrice = basePrice
        self.additions = additions
        self.discount = discount
        self.shipping = shipping
        self.total = total
    }
}
