import LuthierDomain

/// Why a currency's prices cannot be shown: the page tells the customer in words and keeps the
/// last currency it has prices for, instead of showing dollar figures under another symbol.
public enum ExchangeRateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No usable rate for `currency` has ever been had; `reason` says why, for the logs.
    case unavailable(currency: Currency, reason: String)

    /// The currency that could not be had.
    public var currency: Currency {
        switch self {
        case .unavailable(let currency, _): currency
        }
    }

    /// What went wrong upstream, for the logs and the stream inspector — not for customers.
    public var reason: String {
        switch self {
        case .unavailable(_, let reason): reason
        }
    }

    /// A sentence a customer can read, naming the currency and what the page does instead.
    public var message: String {
        "\(Self.name(of: currency)) prices are unavailable right now; showing the last prices we have."
    }

    public var description: String {
        "\(currency.code) rate unavailable: \(reason)"
    }

    private static func name(of currency: Currency) -> String {
        switch currency {
        case .usd: "Dollar"
        case .eur: "Euro"
        case .gbp: "Pound"
        case .ils: "Shekel"
        }
    }
}
