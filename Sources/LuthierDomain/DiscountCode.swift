import Foundation

/// A discount code from the shop's configuration: a percentage off the cart, until it expires.
public struct DiscountCode: Hashable, Sendable {
    public var code: String
    /// Whole percent, 1–100.
    public var percent: Int
    public var expires: Date

    public init(code: String, percent: Int, expires: Date) {
        self.code = code
        self.percent = min(max(percent, 0), 100)
        self.expires = expires
    }

    /// Valid strictly before its expiry.
    public func isValid(at now: Date) -> Bool { now < expires }

    /// `amount` less the percentage, rounded half-to-even to the minor unit.
    public func apply(to amount: Money) -> Money {
        let kept = Decimal(100 - percent) / 100
        return amount.converted(to: amount.currency, rate: kept)
    }
}
