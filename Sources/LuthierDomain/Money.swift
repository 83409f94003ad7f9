import Foundation

/// An exact amount in one currency, kept in integer minor units so that sums never drift.
///
/// Conversions go through `Decimal` and round half-to-even once, at the minor unit; display rounds
/// half-to-even again to whole units, as the shop shows prices without cents.
public struct Money: Hashable, Sendable, Comparable, Codable {
    public var minorUnits: Int
    public var currency: Currency

    public init(minorUnits: Int, currency: Currency) {
        self.minorUnits = minorUnits
        self.currency = currency
    }

    /// Whole US dollars: every catalogue price is one.
    public static func dollars(_ dollars: Int) -> Money {
        Money(minorUnits: dollars * Currency.usd.minorUnitsPerMajor, currency: .usd)
    }

    public static func zero(_ currency: Currency) -> Money { Money(minorUnits: 0, currency: currency) }

    public var isZero: Bool { minorUnits == 0 }

    /// The exact amount in major units.
    public var amount: Decimal {
        Decimal(minorUnits) / Decimal(currency.minorUnitsPerMajor)
    }

    public static func + (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "adding \(lhs.currency) to \(rhs.currency)")
        return Money(minorUnits: lhs.minorUnits + rhs.minorUnits, currency: lhs.currency)
    }

    public static func - (lhs: Money, rhs: Money) -> Money {
        precondition(lhs.currency == rhs.currency, "subtracting \(rhs.currency) from \(lhs.currency)")
        return Money(minorUnits: lhs.minorUnits - rhs.minorUnits, currency: lhs.currency)
    }

    /// `count` of this amount: a line of several guitars.
    public func times(_ count: Int) -> Money {
        Money(minorUnits: minorUnits * count, currency: currency)
    }

    public static func < (lhs: Money, rhs: Money) -> Bool {
        precondition(lhs.currency == rhs.currency, "comparing \(lhs.currency) with \(rhs.currency)")
        return lhs.minorUnits < rhs.minorUnits
    }

    /// This amount multiplied by `rate` (units of `target` per unit of this currency),
    /// rounded half-to-even to the target's minor unit.
    public func converted(to target: Currency, rate: Decimal) -> Money {
        var exact = Decimal(minorUnits) * rate
        var rounded = Decimal()
        NSDecimalRound(&rounded, &exact, 0, .bankers)
        return Money(minorUnits: NSDecimalNumber(decimal: rounded).intValue, currency: target)
    }

    /// The amount in whole major units, rounded half-to-even: 812.50 → 812, 813.50 → 814.
    public var roundedMajorUnits: Int {
        let perMajor = currency.minorUnitsPerMajor
        let magnitude = minorUnits.magnitude
        var whole = magnitude / UInt(perMajor)
        let remainder = magnitude % UInt(perMajor)
        let half = UInt(perMajor / 2)
        if remainder > half || (remainder == half && whole % 2 == 1) {
            whole += 1
        }
        return minorUnits < 0 ? -Int(whole) : Int(whole)
    }

    /// "$2,000", "€1,660", "₪812": symbol, whole units, thousands grouped with commas.
    public func formatted() -> String {
        let whole = roundedMajorUnits
        return (whole < 0 ? "-" : "") + currency.symbol + whole.magnitude.groupedDigits
    }

    /// As `formatted()`, but "Free" for nothing, as the shipping options read.
    public func formattedOrFree() -> String {
        isZero ? "Free" : formatted()
    }
}
