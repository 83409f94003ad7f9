import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

extension LuthierEnvironment {
    /// The wall-clock time every test environment reads: fixed, so that nothing depends on today.
    static let testNow = Date(timeIntervalSince1970: 1_900_000_000)

    /// An environment where every effect fails the test unless the test replaces it.
    static func test(
        clock: any Clock<Duration> = TestClock(),
        now: @escaping @Sendable () -> Date = { testNow },
        workshop: WorkshopClient = .failing(reporting: recordUnexpected),
        exchangeRates: ExchangeRateClient = .failing(reporting: recordUnexpected),
        sessions: SessionStore = .failing(reporting: recordUnexpected),
        analytics: AnalyticsClient = .failing(reporting: recordUnexpected),
        makeID: @escaping @Sendable () -> String = { "checkout-1" }
    ) -> LuthierEnvironment {
        LuthierEnvironment(
            clock: clock, now: now, workshop: workshop, exchangeRates: exchangeRates, sessions: sessions,
            analytics: analytics, makeID: makeID)
    }
}

/// How the features' tests hear of a call a failing double did not expect: a test failure.
let recordUnexpected: UnexpectedCallReport = { call in Issue.record("unexpected \(call) call") }
