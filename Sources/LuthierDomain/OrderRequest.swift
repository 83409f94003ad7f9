import Foundation

/// What the customer asks the workshop to build, fully priced. `checkoutID` makes ordering
/// idempotent: the same checkout ordered twice (or fifty times at once) is one order.
public struct OrderRequest: Hashable, Sendable {
    public var checkoutID: String
    public var guitar: Guitar
    public var shipping: ShippingMethod
    public var rate: ExchangeRate
    public var quote: Quote
    /// An anonymous key of the session that ordered, so that only it can see the order page
    /// without the full link.
    public var sessionKey: String

    public init(checkoutID: String, guitar: Guitar, shipping: ShippingOption, rate: ExchangeRate, sessionKey: String) {
        self.checkoutID = checkoutID
        self.guitar = guitar
        self.shipping = shipping.method
        self.rate = rate
        quote = Quote(guitar: guitar, shipping: shipping, rate: rate)
        self.sessionKey = sessionKey
    }
}
