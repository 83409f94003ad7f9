import AsyncHTTPClient
import Foundation
import Logging
import LuthierFeatures

extension LuthierEnvironment {
    /// The environment of a real server: wall-clock time, random checkout ids, and the given
    /// workshop, exchange rates, session store and analytics log.
    public static func live(
        workshop: WorkshopClient, exchangeRates: ExchangeRateClient, sessions: SessionStore, analytics: AnalyticsClient
    ) -> LuthierEnvironment {
        LuthierEnvironment(
            clock: ContinuousClock(),
            now: { Date() },
            workshop: workshop,
            exchangeRates: exchangeRates,
            sessions: sessions,
            analytics: analytics,
            makeID: { UUID().uuidString.lowercased() }
        )
    }
}

/// The one place where the live effects are wired: the SQLite workshop — which also keeps the
/// sessions and the cart analytics, so one file holds everything that must survive a restart —
/// and the exchange rates (embedded, or an upstream provider with its HTTP client).
public struct LiveSystem: Sendable {
    public let environment: LuthierEnvironment
    /// The workshop as its owner runs it, on the same store. Apart from the environment, which
    /// every session holds copies of: the admin's dozen calls would cost each session their bytes.
    public let admin: WorkshopAdminClient
    public let store: WorkshopStore
    private let httpClient: HTTPClient?

    /// - Parameters:
    ///   - databasePath: the SQLite file (created and migrated if needed), or `:memory:`.
    ///   - ratesURL: an upstream rates provider; nil uses the embedded default rates.
    ///   - simulateLatency: makes the workshop take the original app's times (for demos).
    ///   - shopTaps: the shop's tap recorder (its inspector), which the rates provider records into.
    public init(
        databasePath: String, ratesURL: URL?, simulateLatency: Bool, logger: Logger, shopTaps: TapRecorder? = nil
    ) throws {
        let clock = ContinuousClock()
        store = try WorkshopStore(path: databasePath)
        let exchangeRates: ExchangeRateClient
        if let ratesURL {
            let httpClient = HTTPClient(eventLoopGroupProvider: .singleton)
            self.httpClient = httpClient
            exchangeRates = .http(
                provider: HTTPExchangeRateProvider(
                    url: ratesURL, httpClient: httpClient, clock: clock, logger: logger,
                    tap: shopTaps.map { Tap($0, "rates") }))
        } else {
            httpClient = nil
            exchangeRates = .embedded()
        }
        var environment = LuthierEnvironment.live(
            workshop: .live(store: store, clock: clock, simulatedLatency: simulateLatency),
            exchangeRates: exchangeRates,
            sessions: .live(store: store),
            analytics: .live(store: store)
        )
        admin = .live(store: store)
        environment.taps = shopTaps
        self.environment = environment
    }

    /// Releases the HTTP client, after the server has stopped.
    public func shutdown() async throws {
        try await httpClient?.shutdown()
    }
}
