import Foundation
import LuthierDomain
import LuthierFeatures

extension ExchangeRateClient {
    /// DESIGN.md's rates, for a shop run without `--rates-url`: no network, nothing to fail.
    ///
    /// The rates count as of the moment the client was made, which is what "rates as of …" shows.
    public static func embedded(now: @escaping @Sendable () -> Date = Date.init) -> ExchangeRateClient {
        let asOf = now()
        return ExchangeRateClient { currency in
            guard let perDollar = ExchangeRate.embeddedPerDollar[currency] else {
                throw ExchangeRateError.unavailable(currency: currency, reason: "no embedded rate")
            }
            return ExchangeRate(currency: currency, perDollar: perDollar, asOf: asOf)
        }
    }

    /// Rates from an upstream provider, behind its cache, single flight and last-good fallback.
    public static func http(provider: HTTPExchangeRateProvider) -> ExchangeRateClient {
        ExchangeRateClient { currency in try await provider.rate(for: currency) }
    }
}
