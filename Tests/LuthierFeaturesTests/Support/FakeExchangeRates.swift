import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization

/// Exchange rates that count fetches per currency and can be told to fail.
final class FakeExchangeRates: Sendable {
    private struct State {
        var fetches: [Currency] = []
        var failing: Set<Currency> = []
    }

    private let state = Mutex(State())
    static let asOf = Date(timeIntervalSince1970: 1_800_000_000)

    var fetches: [Currency] { state.withLock { $0.fetches } }
    func fail(_ currency: Currency) { _ = state.withLock { $0.failing.insert(currency) } }

    var client: ExchangeRateClient {
        ExchangeRateClient { currency in
            let fails = self.state.withLock { state in
                state.fetches.append(currency)
                return state.failing.contains(currency)
            }
            if fails { throw URLError(.timedOut) }
            return ExchangeRate(
                currency: currency,
                perDollar: ExchangeRate.embeddedPerDollar[currency] ?? 1,
                asOf: Self.asOf
            )
        }
    }
}
