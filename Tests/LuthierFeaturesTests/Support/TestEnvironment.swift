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

extension LuthierEnvironment {
    /// An environment where every effect fails the test unless the test replaces it.
    static func test(
        clock: any Clock<Duration> = TestClock(),
        workshop: WorkshopClient = .unimplemented,
        exchangeRates: ExchangeRateClient = .unimplemented
    ) -> LuthierEnvironment {
        LuthierEnvironment(clock: clock, workshop: workshop, exchangeRates: exchangeRates, makeID: { "checkout-1" })
    }
}

/// Lets other tasks run until `condition` holds (bounded), for effects that finish on their own
/// tasks. Yields, never sleeps.
func settle(until condition: @Sendable () async -> Bool, yields: Int = 10_000) async -> Bool {
    for _ in 0..<yields {
        if await condition() { return true }
        await Task.yield()
    }
    return await condition()
}

/// Moves a test clock forward in `step`s until `condition` holds (bounded). A debounce schedules
/// its timer on a task of its own, so a single advance can come before the timer exists; stepping
/// until the effect shows keeps the test exact about *what* happens without racing *when* the
/// timer was scheduled. Nothing here sleeps.
func advance(
    _ clock: TestClock<Duration>,
    by step: Duration,
    until condition: @Sendable () async -> Bool
) async -> Bool {
    for _ in 0..<100 {
        if await settle(until: condition, yields: 200) { return true }
        await clock.advance(by: step)
    }
    return await condition()
}
