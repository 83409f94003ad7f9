import Foundation
import LuthierFeatures

extension LuthierEnvironment {
    /// The environment the web tests run with: their test clock, a fixed wall-clock time,
    /// in-memory sessions and analytics, and the failing workshop and rates (every call refused),
    /// which the builder never calls.
    static func webTest(
        clock: any Clock<Duration>,
        sessions: MemorySessionStore = MemorySessionStore(),
        analytics: MemoryAnalytics = MemoryAnalytics()
    ) -> LuthierEnvironment {
        LuthierEnvironment(
            clock: clock,
            now: { Date(timeIntervalSince1970: 1_800_000_000) },
            // Refused, not reported: some tests ask for an order or a rate on purpose and read the
            // refusal the shop answers with.
            workshop: .failing(),
            exchangeRates: .failing(),
            sessions: sessions.client,
            analytics: analytics.client,
            makeID: { "test-checkout" }
        )
    }
}
