import Foundation

/// What the customer asks the workshop to build, fully priced. `checkoutID` makes ordering
/// idempotent: the same checkout ordered twice (or fifty times at once) is one order.
public struct OrderRequest: Hashable, Sendable {
    public var checkoutID: String
    public var lines: [CartLine]
    public var shipping: ShippingMethod
    public var rate: ExchangeRate
    public var discountCode: String?
    public var quote: Quote
    /// An anonymous key of the session that ordered, so that only it can see the order page
    /// without the full link.
    public var sessionKey: String

    public init(
        checkoutID: String, lines: [CartLine], shipping: ShippingOption, rate: ExchangeRate,
        discount: DiscountCode? = nil, sessionKey: String
    ) {
        self.checkoutID = checkoutID
        self.lines = lines
        self.shipping = shipping.method
        self.rate = rate
        discountCode = discount?.code
        quote = Quote(lines: lines, shipping: shipping, rate: rate, discount: discount)
        self.sessionKey = sessionKey
    }

    /// One guitar, as the builder orders it.
    public init(checkoutID: String, guitar: Guitar, shipping: ShippingOption, rate: ExchangeRate, sessionKey: String) {
        self.init(
            checkoutID: checkoutID, lines: [CartLine(guitar: guitar, quantity: 1)], shipping: shipping, rate: rate,
            sessionKey: sessionKey)
    }

    /// How many guitars the order is for.
    public var guitarCount: Int { lines.reduce(0) { $0 + $1.quantity } }
}
