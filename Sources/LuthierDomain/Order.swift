import Foundation

/// A placed order, as stored: every amount in integer minor units of the order's currency.
public struct Order: Hashable, Sendable, Codable {
    /// Short and readable ("LU-7K3M9Q"), for the customer to quote.
    public var number: String
    /// 128 random bits: whoever has `/orders/{number}?key={accessKey}` may see the order.
    public var accessKey: String
    public var checkoutID: String
    /// Every guitar ordered, with its quantity, in the order the customer added them.
    public var lines: [CartLine]
    public var shipping: ShippingMethod
    public var currency: Currency
    /// Units of `currency` per US dollar used for every amount.
    public var rate: Decimal
    public var discountCode: String?
    public var quote: Quote
    public var status: OrderStatus
    public var placedAt: Date
    public var sessionKey: String

    public init(
        number: String, accessKey: String, checkoutID: String, lines: [CartLine], shipping: ShippingMethod,
        currency: Currency, rate: Decimal, discountCode: String? = nil, quote: Quote, status: OrderStatus,
        placedAt: Date, sessionKey: String
    ) {
        self.number = number
        self.accessKey = accessKey
        self.checkoutID = checkoutID
        self.lines = lines
        self.shipping = shipping
        self.currency = currency
        self.rate = rate
        self.discountCode = discountCode
        self.quote = quote
        self.status = status
        self.placedAt = placedAt
        self.sessionKey = sessionKey
    }

    public var guitarCount: Int { lines.reduce(0) { $0 + $1.quantity } }
}

/// Where an order is in the workshop.
public enum OrderStatus: String, CaseIterable, Hashable, Sendable, Codable {
    case placed

    public var label: String {
        switch self {
        case .placed: "Order placed"
        }
    }
}
