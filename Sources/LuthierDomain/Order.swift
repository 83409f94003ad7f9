import Foundation

/// A placed order, as stored: every amount in integer minor units of the order's currency.
public struct Order: Hashable, Sendable {
    /// Short and readable ("LU-7K3M9Q"), for the customer to quote.
    public var number: String
    /// 128 random bits: whoever has `/orders/{number}?key={accessKey}` may see the order.
    public var accessKey: String
    public var checkoutID: String
    public var guitar: Guitar
    public var shipping: ShippingMethod
    public var currency: Currency
    /// Units of `currency` per US dollar used for every amount.
    public var rate: Decimal
    public var quote: Quote
    public var status: OrderStatus
    public var placedAt: Date
    public var sessionKey: String

    public init(
        number: String, accessKey: String, checkoutID: String, guitar: Guitar, shipping: ShippingMethod,
        currency: Currency, rate: Decimal, quote: Quote, status: OrderStatus, placedAt: Date, sessionKey: String
    ) {
        self.number = number
        self.accessKey = accessKey
        self.checkoutID = checkoutID
        self.guitar = guitar
        self.shipping = shipping
        self.currency = currency
        self.rate = rate
        self.quote = quote
        self.status = status
        self.placedAt = placedAt
        self.sessionKey = sessionKey
    }
}

/// Where an order is in the workshop.
public enum OrderStatus: String, CaseIterable, Hashable, Sendable {
    case placed

    public var label: String {
        switch self {
        case .placed: "Order placed"
        }
    }
}
