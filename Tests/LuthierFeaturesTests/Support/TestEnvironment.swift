import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

extension WorkshopClient {
    /// A workshop for tests that must not touch it: any call is a test failure.
    static var unimplemented: WorkshopClient {
        WorkshopClient(
            availability: { _ in
                Issue.record("unexpected workshop.availability call")
                throw CancellationError()
            },
            estimate: { _ in
                Issue.record("unexpected workshop.estimate call")
                throw CancellationError()
            },
            shippingOptions: { _ in
                Issue.record("unexpected workshop.shippingOptions call")
                throw CancellationError()
            },
            placeOrder: { _ in
                Issue.record("unexpected workshop.placeOrder call")
                throw CancellationError()
            },
            order: { _ in
                Issue.record("unexpected workshop.order call")
                throw CancellationError()
            }
        )
    }
}

extension ExchangeRateClient {
    /// Rates for tests that must not fetch any.
    static var unimplemented: ExchangeRateClient {
        ExchangeRateClient { _ in
            Issue.record("unexpected exchange-rate fetch")
            throw CancellationError()
        }
    }
}

extension SessionStore {
    /// Sessions for tests that must not load or save any: the features never do, their owner does.
    static var unimplemented: SessionStore {
        SessionStore(
            load: { _ in
                Issue.record("unexpected sessions.load call")
                throw CancellationError()
            },
            save: { _, _, _ in
                Issue.record("unexpected sessions.save call")
                throw CancellationError()
            },
            delete: { _ in
                Issue.record("unexpected sessions.delete call")
                throw CancellationError()
            },
            deleteUnused: { _, _ in
                Issue.record("unexpected sessions.deleteUnused call")
                throw CancellationError()
            }
        )
    }
}

extension AnalyticsClient {
    /// Analytics for tests that must not record any: the cart only offers its applied actions.
    static var unimplemented: AnalyticsClient {
        AnalyticsClient(
            record: { _ in
                Issue.record("unexpected analytics.record call")
                throw CancellationError()
            },
            report: { _ in
                Issue.record("unexpected analytics.report call")
                throw CancellationError()
            }
        )
    }
}

extension LuthierEnvironment {
    /// The wall-clock time every test environment reads: fixed, so that nothing depends on today.
    static let testNow = Date(timeIntervalSince1970: 1_900_000_000)

    /// An environment where every effect fails the test unless the test replaces it.
    static func test(
        clock: any Clock<Duration> = TestClock(),
        now: @escaping @Sendable () -> Date = { testNow },
        workshop: WorkshopClient = .unimplemented,
        exchangeRates: ExchangeRateClient = .unimplemented,
        sessions: SessionStore = .unimplemented,
        analytics: AnalyticsClient = .unimplemented,
        makeID: @escaping @Sendable () -> String = { "checkout-1" }
    ) -> LuthierEnvironment {
        LuthierEnvironment(
            clock: clock, now: now, workshop: workshop, exchangeRates: exchangeRates, sessions: sessions,
            analytics: analytics, makeID: makeID)
    }
}
