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
    /// The workshop stage the order is in.
    public var status: OrderStatus
    public var placedAt: Date
    /// When the current stage began: `placedAt` for a new order, then one workshop pace later at
    /// each stage change (never "now", so stages do not drift).
    public var stageStartedAt: Date
    public var sessionKey: String

    /// - Parameter stageStartedAt: when the current stage began; nil (the default) for `placedAt`,
    ///   as for a new order.
    public init(
        number: String, accessKey: String, checkoutID: String, lines: [CartLine], shipping: ShippingMethod,
        currency: Currency, rate: Decimal, discountCode: String? = nil, quote: Quote,
        status: OrderStatus = .woodSelection, placedAt: Date, stageStartedAt: Date? = nil, sessionKey: String
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
        self.stageStartedAt = stageStartedAt ?? placedAt
        self.sessionKey = sessionKey
    }

    public var guitarCount: Int { lines.reduce(0) { $0 + $1.quantity } }
}

extension Order {
    private enum CodingKeys: String, CodingKey {
        case number, accessKey, checkoutID, lines, shipping, currency, rate, discountCode, quote, status, placedAt
        case stageStartedAt, sessionKey
    }

    /// Reads an order as `Codable` wrote it, including one saved before orders had stages (in a
    /// stored session): its stage then began when it was placed.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let placedAt = try container.decode(Date.self, forKey: .placedAt)
        self.init(
            number: try container.decode(String.self, forKey: .number),
            accessKey: try container.decode(String.self, forKey: .accessKey),
            checkoutID: try container.decode(String.self, forKey: .checkoutID),
            lines: try container.decode([CartLine].self, forKey: .lines),
            shipping: try container.decode(ShippingMethod.self, forKey: .shipping),
            currency: try container.decode(Currency.self, forKey: .currency),
            rate: try container.decode(Decimal.self, forKey: .rate),
            discountCode: try container.decodeIfPresent(String.self, forKey: .discountCode),
            quote: try container.decode(Quote.self, forKey: .quote),
            status: try container.decode(OrderStatus.self, forKey: .status),
            placedAt: placedAt,
            stageStartedAt: try container.decodeIfPresent(Date.self, forKey: .stageStartedAt),
            sessionKey: try container.decode(String.self, forKey: .sessionKey)
        )
    }
}

/// Where an order is in the workshop: the stages every guitar goes through, in order, the two
/// ways the workshop finishes an order, and the two things only the shop's admin does to one
/// (cancel it before its woods are cut, hand a pickup over).
public enum OrderStatus: String, CaseIterable, Hashable, Sendable, Codable {
    case woodSelection, bodyShaping, finishing, setup, shipped, readyForPickup
    /// The admin cancelled it while it was still at wood selection; its woods went back to stock.
    case cancelled
    /// A pickup order the customer has collected.
    case collected

    public var label: String {
        switch self {
        case .woodSelection: "Wood selection"
        case .bodyShaping: "Body shaping"
        case .finishing: "Finishing"
        case .setup: "Setup"
        case .shipped: "Shipped"
        case .readyForPickup: "Ready for pickup"
        case .cancelled: "Cancelled"
        case .collected: "Collected"
        }
    }

    /// Whether the workshop is done with the order (shipped, waiting to be picked up, collected or
    /// cancelled): the floor's stage timer never moves it again.
    public var isFinished: Bool {
        switch self {
        case .shipped, .readyForPickup, .cancelled, .collected: true
        case .woodSelection, .bodyShaping, .finishing, .setup: false
        }
    }

    /// Only an order whose woods have not been cut can be cancelled: at wood selection the blanks
    /// are still whole and go back to stock.
    public var isCancellable: Bool { self == .woodSelection }

    /// Only a pickup order waiting at the workshop can be marked collected.
    public var isCollectable: Bool { self == .readyForPickup }

    /// The stage after this one for an order shipped by `shipping`: after Setup it is Ready for
    /// pickup for a pickup, Shipped otherwise; a finished order has none.
    public func next(for shipping: ShippingMethod) -> OrderStatus? {
        switch self {
        case .woodSelection: .bodyShaping
        case .bodyShaping: .finishing
        case .finishing: .setup
        case .setup: shipping == .pickup ? .readyForPickup : .shipped
        case .shipped, .readyForPickup, .cancelled, .collected: nil
        }
    }

    /// The five stages an order shipped by `shipping` goes through, first to last.
    public static func stages(for shipping: ShippingMethod) -> [OrderStatus] {
        [.woodSelection, .bodyShaping, .finishing, .setup, shipping == .pickup ? .readyForPickup : .shipped]
    }

    /// Reads a status, including `placed`, which is what every order was before the workshop had
    /// stages (an order in a session saved then): such an order is at the first stage.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        if raw == "placed" {
            self = .woodSelection
        } else if let status = OrderStatus(rawValue: raw) {
            self = status
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "'\(raw)' is not an order status"))
        }
    }
}
