import Foundation

/// How many units of a currency one US dollar buys, and since when that is known.
public struct ExchangeRate: Hashable, Sendable {
    public var currency: Currency
    public var perDollar: Decimal
    public var asOf: Date

    public init(currency: Currency, perDollar: Decimal, asOf: Date) {
        self.currency = currency
        self.perDollar = perDollar
        self.asOf = asOf
    }

    /// Dollars are dollars: no fetch needed.
    public static func dollar(asOf: Date = Date(timeIntervalSince1970: 0)) -> ExchangeRate {
        ExchangeRate(currency: .usd, perDollar: 1, asOf: asOf)
    }

    /// DESIGN.md's defaults, used when no upstream provider is configured.
    public static let embeddedPerDollar: [Currency: Decimal] = [
        .usd: 1,
        .eur: Decimal(string: "0.83") ?? 0,
        .gbp: Decimal(string: "0.71") ?? 0,
        .ils: Decimal(string: "3.25") ?? 0,
    ]

    /// A dollar amount in this currency, rounded half-to-even to the minor unit.
    public func convert(_ dollars: Money) -> Money {
        currency == .usd ? dollars : dollars.converted(to: currency, rate: perDollar)
    }
}
