/// The currencies a customer can see prices in, in the order the picker lists them.
public enum Currency: String, CaseIterable, Hashable, Sendable, Codable {
    case usd = "USD"
    case eur = "EUR"
    case gbp = "GBP"
    case ils = "ILS"

    public var code: String { rawValue }

    public var symbol: String {
        switch self {
        case .usd: "$"
        case .eur: "€"
        case .gbp: "£"
        case .ils: "₪"
        }
    }

    /// Digits after the decimal point in the currency's minor unit (cents, pence, agorot).
    public var minorUnitDigits: Int { 2 }

    /// How many minor units make one major unit.
    public var minorUnitsPerMajor: Int { 100 }
}
