import Clocks
import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

/// The test environment itself: every effect a test did not replace fails it (by recording an
/// issue, not merely by throwing), and time is fixed.
@Suite struct LuthierEnvironmentTests {
    @Test func readsAFixedNow() {
        let environment = LuthierEnvironment.test()
        #expect(environment.now() == LuthierEnvironment.testNow)
        #expect(environment.now() == environment.now())
        #expect(environment.makeID() == "checkout-1")
    }

    @Test func unexpectedSessionCallsFailTheTest() async {
        let sessions = LuthierEnvironment.test().sessions
        await withKnownIssue {
            _ = try? await sessions.load("key")
        }
        await withKnownIssue {
            _ = try? await sessions.save("key", 0, SessionSnapshot(orderKey: "o", analyticsKey: "a"))
        }
        await withKnownIssue {
            try? await sessions.delete("key")
        }
        await withKnownIssue {
            _ = try? await sessions.deleteUnused(LuthierEnvironment.testNow, LuthierEnvironment.testNow)
        }
    }

    @Test func unexpectedAnalyticsCallsFailTheTest() async {
        let analytics = LuthierEnvironment.test().analytics
        await withKnownIssue {
            try? await analytics.record([
                AnalyticsEvent(action: "add", configuration: nil, at: LuthierEnvironment.testNow, sessionKey: "a")
            ])
        }
        await withKnownIssue {
            _ = try? await analytics.report(10)
        }
    }

    @Test func unexpectedWorkshopAndRateCallsFailTheTest() async {
        let environment = LuthierEnvironment.test()
        await withKnownIssue {
            _ = try? await environment.workshop.availability([CartLine(guitar: .standard, quantity: 1)])
        }
        await withKnownIssue {
            _ = try? await environment.exchangeRates.rate(.eur)
        }
    }
}
