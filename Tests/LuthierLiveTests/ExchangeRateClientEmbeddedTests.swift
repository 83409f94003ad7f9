import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

@Suite struct ExchangeRateClientEmbeddedTests {
    private static let madeAt = Date(timeIntervalSince1970: 1_714_521_600)

    @Test(arguments: [
        (Currency.usd, "1"), (Currency.eur, "0.83"), (Currency.gbp, "0.71"), (Currency.ils, "3.25"),
    ])
    func givesDesignRates(currency: Currency, perDollar: String) async throws {
        let client = ExchangeRateClient.embedded(now: { Self.madeAt })
        let rate = try await client.rate(currency)
        #expect(rate.currency == currency)
        #expect(rate.perDollar == Decimal(string: perDollar))
    }

    @Test func ratesCountAsOfWhenTheClientWasMade() async throws {
        let now = MovableNow(Self.madeAt)
        let client = ExchangeRateClient.embedded(now: now.callAsFunction)
        now.value = Self.madeAt.addingTimeInterval(3_600)
        let rate = try await client.rate(.eur)
        #expect(rate.asOf == Self.madeAt)
    }

    @Test func pricesReadAsDesignSays() async throws {
        let client = ExchangeRateClient.embedded()
        let express = Money.dollars(250)
        let shekels = try await client.rate(.ils).convert(express)
        let euros = try await client.rate(.eur).convert(.dollars(2_000))
        #expect(shekels.formatted() == "₪812")
        #expect(euros.formatted() == "€1,660")
    }
}
