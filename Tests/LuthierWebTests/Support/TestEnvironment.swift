import Foundation
import LuthierFeatures

extension LuthierEnvironment {
    /// The environment the web tests run with: their test clock, a fixed wall-clock time,
    /// in-memory sessions and analytics, and workshop and rates services the builder never calls,
    /// which fail loudly if something does.
    static func webTest(
        clock: any Clock<Duration>,
        sessions: MemorySessionStore = MemorySessionStore(),
        analytics: MemoryAnalytics = MemoryAnalytics()
    ) -> LuthierEnvironment {
        LuthierEnvironment(
            clock: clock,
            now: { Date(timeIntervalSince1970: 1_800_000_000) },
            workshop: WorkshopClient(
                availability: { _ in throw UnexpectedCall(name: "workshop.availability") },
                estimate: { _ in throw UnexpectedCall(name: "workshop.estimate") },
                shippingOptions: { _ in throw UnexpectedCall(name: "workshop.shippingOptions") },
                placeOrder: { _ in throw UnexpectedCall(name: "workshop.placeOrder") },
                order: { _ in throw UnexpectedCall(name: "workshop.order") }
            ),
            exchangeRates: ExchangeRateClient(rate: { _ in throw UnexpectedCall(name: "exchangeRates.rate") }),
            sessions: sessions.client,
            analytics: analytics.client,
            makeID: { "test-checkout" }
        )
    }

    struct UnexpectedCall: Error, CustomStringConvertible {
        let name: String
        var description: String { "The web tests did not expect a call to \(name)" }
    }
}
