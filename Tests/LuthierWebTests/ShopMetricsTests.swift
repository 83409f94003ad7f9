import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierWeb

/// `ShopMetrics` alone: a store write that fails is counted as failed, a refusal the workshop made
/// on purpose is not, and a rate's age is counted to the scrape.
@Suite struct ShopMetricsTests {
    struct DiskFull: Error {}

    static func samples(_ metrics: ShopMetrics, now: Date = Date(timeIntervalSince1970: 0)) -> [String: Double] {
        MetricsControllerTests.samples(
            String(
                buffer: metrics.exposition(
                    ShopMetrics.Readings(connections: 0, streams: 0, kioskStreams: 0, sessions: 0, now: now))))
    }

    @Test func aFailedWriteIsCountedAndARefusalIsNot() async throws {
        let metrics = ShopMetrics()
        let clock = ContinuousClock()
        await #expect(throws: DiskFull.self) {
            try await metrics.write("place-order", on: clock) { () async throws -> Int in throw DiskFull() }
        }
        await #expect(throws: OrderError.self) {
            try await metrics.write("place-order", on: clock) { () async throws -> Int in
                throw OrderError.unavailable(missing: ["Koa body blanks"])
            }
        }
        #expect(try await metrics.write("place-order", on: clock) { 7 } == 7)
        let samples = Self.samples(metrics)
        #expect(samples["luthier_store_failures_total{operation=\"place-order\"}"] == 1)
        #expect(samples["luthier_store_write_duration_seconds_count{operation=\"place-order\"}"] == 3)
    }

    @Test func aRatesAgeIsCountedToTheScrapeAndFailuresPerCurrency() {
        let metrics = ShopMetrics(storeLockWaits: { 4 })
        let asOf = Date(timeIntervalSince1970: 1_000)
        metrics.rateServed(ExchangeRate(currency: .gbp, perDollar: 1, asOf: asOf))
        metrics.rateFailed(.gbp)
        metrics.rateFailed(.ils)
        let samples = Self.samples(metrics, now: asOf.addingTimeInterval(90))
        #expect(samples["luthier_exchange_rate_age_seconds{currency=\"GBP\"}"] == 90)
        #expect(samples["luthier_exchange_rate_age_seconds{currency=\"ILS\"}"] == nil)
        #expect(samples["luthier_exchange_rate_requests_total{currency=\"GBP\",result=\"served\"}"] == 1)
        #expect(samples["luthier_exchange_rate_requests_total{currency=\"GBP\",result=\"failed\"}"] == 1)
        #expect(samples["luthier_exchange_rate_requests_total{currency=\"ILS\",result=\"failed\"}"] == 1)
        #expect(samples["luthier_store_lock_waits_total"] == 4)
    }
}
