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

/// Encoded with the rate as exact decimal text, so that a stored rate reads back digit for digit.
extension ExchangeRate: Codable {
    private enum CodingKeys: String, CodingKey {
        case currency, perDollar, asOf
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .perDollar)
        // Plain decimal digits only: `Decimal(string:)` reads a prefix, so "0.83.1" would be 0.83.
        guard text.allSatisfy({ ("0"..."9").contains($0) || $0 == "." }), text.filter({ $0 == "." }).count <= 1,
            let rate = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), rate > 0
        else {
            throw DecodingError.dataCorruptedError(
                forKey: .perDollar, in: container, debugDescription: "'\(text)' is not a positive decimal rate")
        }
        self.init(
            currency: try container.decode(Currency.self, forKey: .currency),
            perDollar: rate,
            asOf: try container.decode(Date.self, forKey: .asOf)
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(currency, forKey: .currency)
        try container.encode(perDollar.description, forKey: .perDollar)
        try container.encode(asOf, forKey: .asOf)
    }
}
