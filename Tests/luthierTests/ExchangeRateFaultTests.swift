import Foundation
import GRDB
import Testing

/// The exchange-rate provider refusing, hanging or answering garbage, end to end through the
/// `luthier` binary started with `--rates-url`: choosing euros ends, within a bounded time, with a
/// notice and the prices back in dollars (never dollar figures under a € label), and the customer
/// orders in dollars. A good provider's rates are used. (`HTTPExchangeRateProviderTests` covers the
/// provider itself: caching, single flight, timeouts on a test clock, last good rates.)
@Suite("Process: a failing exchange-rate provider")
struct ExchangeRateFaultTests {
    /// The debounce (0.5 s) plus the provider's time-out (3 s), with room for a loaded machine.
    static let settleBound = Duration.seconds(8)

    static let failing: [RatesProvider] = [
        .refuse, .hang, .answer("<html>not json</html>"), .answer(#"{"base":"USD","rates":{"EUR":"lots"}}"#),
        .status(500),
    ]

    @Test(arguments: failing)
    func theCheckoutFallsBackToDollarsInBoundedTimeAndTheOrderGoesThrough(provider: RatesProvider) async throws {
        try await provider.run { ratesURL in
            try await withShop { bench, client in
                let server = try await bench.startServer(arguments: ["--rates-url", ratesURL])
                let customer = Customer(client: client, server: server.baseURL)
                let cookie = try await customer.checkedOut(GuitarChoice(shape: "longV", color: "sky"))

                let chosen = ContinuousClock.now
                try await customer.post("/checkout/currency", form: "currency=EUR", cookie: cookie)
                let page = try await Self.settledCheckout(client, server: server, cookie: cookie)
                let settled = chosen.duration(to: .now)

                #expect(page.text.contains("EUR prices are unavailable right now; showing prices in USD."), "\(page)")
                #expect(page.text.contains(#"value="USD" checked"#))
                #expect(!page.text.contains(#"value="EUR" checked"#))
                // Every row in dollars, under the dollar that is selected.
                #expect(page.text.contains(#"<dd id="total-base">$2,000</dd>"#))
                #expect(page.text.contains(#"<dd id="total-additions">$225</dd>"#))
                #expect(page.text.contains(#"<dd class="grand" id="grand-total">$2,225</dd>"#))
                #expect(settled < Self.settleBound)

                let order = try await customer.order(cookie: cookie)
                #expect(order.status == 204, "\(order)")
                let ordered = chosen.duration(to: .now)
                let stored = try ShopDatabase(bench.database).orderCurrencies()
                #expect(stored == ["USD"])
                print(
                    "[reliability] rates provider with \(provider.testDescription): euros fell back to dollars "
                        + "after \(settled.milliseconds) ms, the order was confirmed (USD) "
                        + "\(ordered.milliseconds) ms after the currency was chosen")
            }
        }
    }

    @Test func aGoodProvidersRatesAreUsed() async throws {
        try await RatesProvider.answer(RatesProvider.goodRates).run { ratesURL in
            try await withShop { bench, client in
                let server = try await bench.startServer(arguments: ["--rates-url", ratesURL])
                let customer = Customer(client: client, server: server.baseURL)
                let cookie = try await customer.checkedOut(GuitarChoice(shape: "longV", color: "sky"))
                try await customer.post("/checkout/currency", form: "currency=EUR", cookie: cookie)
                let page = try await Self.settledCheckout(client, server: server, cookie: cookie)
                // $2,225 × 0.83 = €1,846.75, shown whole.
                #expect(page.text.contains(#"<dd class="grand" id="grand-total">€1,847</dd>"#), "\(page)")
                #expect(page.text.contains("EUR rates as of"))
                #expect(try await customer.order(cookie: cookie).status == 204)
                #expect(try ShopDatabase(bench.database).orderCurrencies() == ["EUR"])
            }
        }
    }

    /// The checkout page once the chosen currency's prices are no longer loading.
    static func settledCheckout(_ client: ShopClient, server: LuthierProcess, cookie: String) async throws
        -> ShopResponse
    {
        var page = ShopResponse(status: 0, headers: [:], text: "")
        let url = server.url("/checkout")
        try await waitUntil("the prices are shown", limit: settleBound, pollEvery: .milliseconds(50)) {
            page = try await client.get(url, cookie: cookie)
            return page.status == 200 && !page.text.contains(#"id="rates-loading""#)
                && (page.text.contains(#"id="checkout-notice""#) || page.text.contains("rates as of"))
        }
        return page
    }
}

extension ShopDatabase {
    /// The currency of every stored order.
    func orderCurrencies() throws -> [String] {
        try queue.read { db in try String.fetchAll(db, sql: "SELECT currency FROM orders ORDER BY placed_at") }
    }
}
