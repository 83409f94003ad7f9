import AsyncHTTPClient
import Clocks
import Foundation
import Hummingbird
import Logging
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// Every test talks to a real HTTP provider on 127.0.0.1 (`LocalRatesProvider`) through a real `HTTPClient`;
/// time-to-live and the timeout race run on a `TestClock`, so no test waits for them.
@Suite struct HTTPExchangeRateProviderTests {
    private static let fetchedAt = Date(timeIntervalSince1970: 1_714_521_600)
    private static let silent = Logger(label: "rates", factory: { _ in SwiftLogNoOpLogHandler() })

    /// Runs `body` against a local provider behaving as `behaviour`, with a fresh HTTP client shut down after.
    private static func withProvider(
        _ behaviour: LocalRatesProvider.Behaviour,
        _ body: @Sendable (LocalRatesProvider, URL, HTTPClient) async throws -> Void
    ) async throws {
        let provider = LocalRatesProvider(behaviour)
        try await provider.run { url in
            try await withHTTPClient { client in try await body(provider, url, client) }
        }
    }

    private static func rates(
        _ url: URL,
        _ client: HTTPClient,
        clock: TestClock<Duration>,
        timeout: Duration = .seconds(3),
        timeToLive: Duration = .seconds(600),
        now: @escaping @Sendable () -> Date = { fetchedAt },
        taps: TapRecorder? = nil
    ) -> HTTPExchangeRateProvider {
        HTTPExchangeRateProvider(
            url: url, httpClient: client, clock: clock, timeout: timeout, timeToLive: timeToLive,
            retryAfterFailure: .seconds(30), now: now, logger: silent, tap: taps.map { Tap($0, "rates") }
        )
    }

    private static func unavailable(
        _ rates: HTTPExchangeRateProvider,
        _ currency: Currency
    ) async -> ExchangeRateError? {
        do {
            _ = try await rates.rate(for: currency)
            return nil
        } catch {
            return error
        }
    }

    // MARK: good answers

    @Test func oneFetchBringsEveryCurrency() async throws {
        try await Self.withProvider(.answer(LocalRatesProvider.goodRates)) { provider, url, client in
            let rates = Self.rates(url, client, clock: TestClock())
            let euro = try await rates.rate(for: .eur)
            let pound = try await rates.rate(for: .gbp)
            let shekel = try await rates.rate(for: .ils)
            #expect(euro == ExchangeRate(currency: .eur, perDollar: Decimal(string: "0.83") ?? 0, asOf: Self.fetchedAt))
            #expect(pound.perDollar == Decimal(string: "0.71"))
            #expect(shekel.perDollar == Decimal(string: "3.25"))
            #expect(provider.requests == 1)
        }
    }

    @Test func keepsEveryDigitOfTheRate() async throws {
        let body = #"{"base":"USD","rates":{"EUR":0.8312,"GBP":0.7100000000000000001,"ILS":3.25}}"#
        try await Self.withProvider(.answer(body)) { _, url, client in
            let rates = Self.rates(url, client, clock: TestClock())
            let euro = try await rates.rate(for: .eur)
            let pound = try await rates.rate(for: .gbp)
            #expect(euro.perDollar == Decimal(string: "0.8312"))
            #expect(pound.perDollar == Decimal(string: "0.7100000000000000001"))
        }
    }

    @Test func ratesCountAsOfTheProvidersDate() async throws {
        let body = #"{"base":"USD","date":"2024-04-30","rates":{"EUR":0.83,"GBP":0.71,"ILS":3.25}}"#
        try await Self.withProvider(.answer(body)) { _, url, client in
            let rates = Self.rates(url, client, clock: TestClock())
            let euro = try await rates.rate(for: .eur)
            #expect(euro.asOf == Date(timeIntervalSince1970: 1_714_435_200))
        }
    }

    @Test func dollarsNeedNoRequest() async throws {
        try await Self.withProvider(.status(.internalServerError)) { provider, url, client in
            let rates = Self.rates(url, client, clock: TestClock())
            let dollar = try await rates.rate(for: .usd)
            #expect(dollar.perDollar == 1)
            #expect(provider.requests == 0)
        }
    }

    @Test func theClientAsksTheProvider() async throws {
        try await Self.withProvider(.answer(LocalRatesProvider.goodRates)) { provider, url, client in
            let exchangeRates = ExchangeRateClient.http(provider: Self.rates(url, client, clock: TestClock()))
            let shekel = try await exchangeRates.rate(.ils)
            let euro = try await exchangeRates.rate(.eur)
            #expect(shekel.perDollar == Decimal(string: "3.25"))
            #expect(euro.convert(.dollars(2_000)).formatted() == "€1,660")
            #expect(provider.requests == 1)
        }
    }

    // MARK: cache and single flight

    @Test func freshRatesNeedNoRequestUntilTheirTimeIsUp() async throws {
        try await Self.withProvider(.answer(LocalRatesProvider.goodRates)) { provider, url, client in
            let clock = TestClock<Duration>()
            let rates = Self.rates(url, client, clock: clock, timeToLive: .seconds(600))
            _ = try await rates.rate(for: .eur)
            await clock.advance(by: .seconds(599))
            _ = try await rates.rate(for: .eur)
            _ = try await rates.rate(for: .gbp)
            #expect(provider.requests == 1)
            await clock.advance(by: .seconds(1))
            _ = try await rates.rate(for: .ils)
            #expect(provider.requests == 2)
        }
    }

    @Test func aThousandConcurrentAsksShareOneRequest() async throws {
        try await Self.withProvider(.hold(thenAnswer: LocalRatesProvider.goodRates)) { provider, url, client in
            // No time-to-live: only sharing the fetch in flight can explain a single request.
            let rates = Self.rates(url, client, clock: TestClock(), timeout: .seconds(20), timeToLive: .zero)
            try await withThrowingTaskGroup(of: ExchangeRate.self) { group in
                for _ in 0..<1_000 {
                    group.addTask { try await rates.rate(for: .eur) }
                }
                try await waitUntil("the provider holds one request") { provider.requests == 1 }
                try await waitUntil("every ask waits for that request") { await rates.waitingForFetch == 1_000 }
                provider.releaseHeldRequests()
                var answered = 0
                for try await rate in group {
                    #expect(rate.perDollar == Decimal(string: "0.83"))
                    answered += 1
                }
                #expect(answered == 1_000)
            }
            #expect(provider.requests == 1)
            _ = try await rates.rate(for: .eur)
            #expect(provider.requests == 2)
        }
    }

    @Test("the shop's inspector sees the fetch, the asks that join it, the cache and a failure, never the URL")
    func tapped() async throws {
        try await Self.withProvider(.hold(thenAnswer: LocalRatesProvider.goodRates)) { provider, url, client in
            let clock = TestClock<Duration>()
            let recorder = TapRecorder(capacity: 64, clock: clock)
            let stopWatching = recorder.watch()
            defer { stopWatching() }
            let rates = Self.rates(url, client, clock: clock, taps: recorder)
            try await withThrowingTaskGroup(of: ExchangeRate.self) { group in
                for currency in [Currency.eur, .gbp, .ils] {
                    group.addTask { try await rates.rate(for: currency) }
                }
                try await waitUntil("every ask waits for the one request") { await rates.waitingForFetch == 3 }
                provider.releaseHeldRequests()
                for try await _ in group {}
            }
            _ = try await rates.rate(for: .eur)
            provider.behaviour = .status(.serviceUnavailable)
            await clock.advance(by: .seconds(600))
            _ = try await rates.rate(for: .eur)

            let events = recorder.events
            let fetches = events.filter { $0.lane == "rates.fetch" }
            #expect(fetches.map(\.kind) == [.subscription, .value, .subscription, .failure], "\(fetches)")
            #expect(fetches[1].text == "3 currencies")
            #expect(fetches[3].text.contains("503"), "\(fetches[3].text)")
            #expect(events.filter { $0.lane == "rates.join" }.count == 2)
            #expect(events.filter { $0.lane == "rates.cache" }.map(\.text) == ["EUR: cached"])
            #expect(!events.contains { $0.text.contains(url.absoluteString) || $0.text.contains("127.0.0.1") })
        }
    }

    // MARK: failures

    struct FailingProvider: Sendable, CustomTestStringConvertible {
        var behaviour: LocalRatesProvider.Behaviour
        var reason: String
        var testDescription: String
    }

    @Test(arguments: [
        FailingProvider(behaviour: .answer("not json"), reason: "not a rates document", testDescription: "garbage"),
        FailingProvider(
            behaviour: .answer(#"{"base":"USD","rates":{"XYZ":1.5}}"#), reason: "did not quote EUR",
            testDescription: "an unknown code only"),
        FailingProvider(
            behaviour: .answer(#"{"base":"EUR","rates":{"EUR":1,"USD":1.2}}"#), reason: "per EUR, not per USD",
            testDescription: "another base"),
        FailingProvider(behaviour: .status(.internalServerError), reason: "HTTP 500", testDescription: "500"),
        FailingProvider(behaviour: .status(.notFound), reason: "HTTP 404", testDescription: "404"),
        FailingProvider(behaviour: .closeMidAnswer, reason: "could not be read", testDescription: "a closed socket"),
        FailingProvider(
            behaviour: .largeAnswer(bytes: 70 * 1_024), reason: "over 64 KiB", testDescription: "a 70 KiB answer"),
    ])
    func withNoGoodRateEverAskingThrows(failing: FailingProvider) async throws {
        try await Self.withProvider(failing.behaviour) { provider, url, client in
            let rates = Self.rates(url, client, clock: TestClock())
            let error = try #require(await Self.unavailable(rates, .eur))
            #expect(error.currency == .eur)
            #expect(error.reason.contains(failing.reason), "\(error.reason)")
            #expect(error.message == "Euro prices are unavailable right now; showing the last prices we have.")
            #expect(provider.requests == 1)
        }
    }

    @Test func aBadRateSpoilsOnlyItsOwnCurrency() async throws {
        let body = #"{"base":"USD","rates":{"EUR":-0.83,"GBP":"0.71","ILS":3.25,"JPY":151}}"#
        try await Self.withProvider(.answer(body)) { provider, url, client in
            let rates = Self.rates(url, client, clock: TestClock())
            let shekel = try await rates.rate(for: .ils)
            #expect(shekel.perDollar == Decimal(string: "3.25"))
            #expect(await Self.unavailable(rates, .eur)?.reason.contains("not a usable rate") == true)
            #expect(await Self.unavailable(rates, .gbp)?.reason.contains("not a number") == true)
            #expect(provider.requests == 1)
        }
    }

    @Test func aSlowProviderFailsWhenTheClockPassesTheTimeout() async throws {
        try await Self.withProvider(.hold(thenAnswer: LocalRatesProvider.goodRates)) { provider, url, client in
            let clock = TestClock<Duration>()
            // The HTTP deadline is far off in real time: only the test clock can end this fetch.
            let rates = Self.rates(url, client, clock: clock, timeout: .seconds(30))
            let started = ContinuousClock.now
            let ask = Task { try await rates.rate(for: .eur) }
            try await waitUntil("the provider holds the request") { provider.requests == 1 }
            try await waitUntil("the timeout is asleep on the test clock") {
                (try? await clock.checkSuspension()) == nil
            }
            await clock.advance(by: .seconds(30))
            let error = await #expect(throws: ExchangeRateError.self) { try await ask.value }
            #expect(error?.reason.contains("did not answer within") == true)
            // Ended by the test clock, not by the HTTP deadline 30 real seconds on (the margin is
            // for a loaded machine).
            #expect(started.duration(to: .now) < .seconds(25))
        }
    }

    @Test func aSlowProviderFailsAtTheRequestDeadline() async throws {
        try await Self.withProvider(.hold(thenAnswer: LocalRatesProvider.goodRates)) { provider, url, client in
            // The test clock never moves: only the HTTP client's own deadline can end this fetch.
            // A whole second: far above a loopback connect, so the request reaches the provider
            // even on a loaded machine, and what ends the fetch is the deadline.
            let rates = Self.rates(url, client, clock: TestClock(), timeout: .seconds(1))
            let started = ContinuousClock.now
            let error = await Self.unavailable(rates, .eur)
            let took = started.duration(to: .now)
            #expect(error?.reason.contains("could not be read") == true, "\(String(describing: error))")
            #expect(took >= .seconds(1))
            #expect(took < .seconds(10))
            #expect(provider.requests == 1)
        }
    }

    // MARK: the last good rates

    @Test func aFailingRefreshKeepsTheLastGoodRate() async throws {
        try await Self.withProvider(.answer(LocalRatesProvider.goodRates)) { provider, url, client in
            let clock = TestClock<Duration>()
            let now = MovableNow(Self.fetchedAt)
            let rates = Self.rates(url, client, clock: clock, now: now.callAsFunction)
            _ = try await rates.rate(for: .eur)

            provider.behaviour = .status(.serviceUnavailable)
            now.value = Self.fetchedAt.addingTimeInterval(3_600)
            await clock.advance(by: .seconds(3_600))
            let stale = try await rates.rate(for: .eur)
            #expect(
                stale == ExchangeRate(currency: .eur, perDollar: Decimal(string: "0.83") ?? 0, asOf: Self.fetchedAt))
            #expect(provider.requests == 2)

            // A dead provider is left alone for a while rather than asked by every page.
            await clock.advance(by: .seconds(29))
            #expect(try await rates.rate(for: .gbp).asOf == Self.fetchedAt)
            #expect(provider.requests == 2)

            provider.behaviour = .answer(#"{"base":"USD","rates":{"EUR":0.9,"GBP":0.75,"ILS":3.5}}"#)
            await clock.advance(by: .seconds(1))
            let fresh = try await rates.rate(for: .eur)
            #expect(fresh == ExchangeRate(currency: .eur, perDollar: Decimal(string: "0.9") ?? 0, asOf: now.value))
            #expect(provider.requests == 3)
        }
    }

    @Test func aCurrencyMissingLaterKeepsItsLastGoodRate() async throws {
        try await Self.withProvider(.answer(LocalRatesProvider.goodRates)) { provider, url, client in
            let clock = TestClock<Duration>()
            let rates = Self.rates(url, client, clock: clock)
            _ = try await rates.rate(for: .eur)
            provider.behaviour = .answer(#"{"base":"USD","rates":{"GBP":0.72,"ILS":3.3}}"#)
            await clock.advance(by: .seconds(600))
            #expect(try await rates.rate(for: .gbp).perDollar == Decimal(string: "0.72"))
            #expect(try await rates.rate(for: .eur).perDollar == Decimal(string: "0.83"))
            #expect(provider.requests == 2)
        }
    }
}
