import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization
import Testing

@testable import LuthierLive

@Suite struct WorkshopClientLiveTests {
    /// One of the four timed calls, made through a live client.
    enum Call: String, CaseIterable, Sendable {
        case availability, estimate, shipping, order

        var latency: ClosedRange<Duration> {
            switch self {
            case .availability: SimulatedLatency.availability
            case .estimate: SimulatedLatency.estimate
            case .shipping: SimulatedLatency.shipping
            case .order: SimulatedLatency.order
            }
        }

        func make(on client: WorkshopClient) async throws {
            switch self {
            case .availability: _ = try await client.availability(Self.lines)
            case .estimate: _ = try await client.estimate(Self.lines)
            case .shipping: _ = try await client.shippingOptions(Self.lines)
            case .order: _ = try await client.placeOrder(OrderFixture.request())
            }
        }

        static let lines = [CartLine(guitar: .standard, quantity: 1)]
    }

    @Test func theDocumentedRangesAreTheOriginalAppsTimes() async {
        #expect(SimulatedLatency.availability == .seconds(1) ... .seconds(2))
        #expect(SimulatedLatency.estimate == .milliseconds(700) ... .milliseconds(1500))
        #expect(SimulatedLatency.shipping == .milliseconds(300) ... .seconds(1))
        #expect(SimulatedLatency.order == .seconds(1) ... .seconds(2))
    }

    @Test func theLiveClientAnswersFromTheStore() async throws {
        let store = try WorkshopStore(path: ":memory:")
        let client = WorkshopClient.live(store: store, clock: TestClock())
        try await store.setStock(of: .body(.koa), to: 0)

        let standard = CartLine(guitar: .standard, quantity: 1)
        let koa = CartLine(guitar: Guitar(body: .koa), quantity: 1)
        #expect(try await client.availability([standard]) == [.available])
        #expect(
            try await client.availability([standard, koa]) == [.available, .unavailable(missing: ["Koa body blanks"])])
        #expect(try await client.estimate([standard]) == BuildEstimate(months: 2))
        // The whole order's estimate is its longest guitar's: Koa is scarce now.
        #expect(try await client.estimate([standard, koa]) == BuildEstimate(months: 3))
        #expect(try await client.shippingOptions([standard, koa]) == ShippingOption.standard)

        let order = try await client.placeOrder(OrderFixture.request())
        #expect(try await client.order(order.number) == order)
        #expect(try await client.order("LU-NOPE22") == nil)
        #expect(try await client.estimate([standard]) == BuildEstimate(months: 3))
        await #expect(throws: OrderError.unavailable(missing: ["Koa body blanks"])) {
            try await client.placeOrder(OrderFixture.request(checkoutID: "koa", guitar: Guitar(body: .koa)))
        }
    }

    @Test(arguments: Call.allCases)
    func withoutSimulatedLatencyNoCallSleeps(call: Call) async throws {
        let clock = TestClock()
        let client = WorkshopClient.live(store: try WorkshopStore(path: ":memory:"), clock: clock)
        // The test clock is never advanced: a call that slept would never return.
        try await call.make(on: client)
        try await clock.checkSuspension()
    }

    @Test(arguments: Call.allCases)
    func simulatedLatencyLastsWithinTheOriginalRange(call: Call) async throws {
        let clock = TestClock()
        let client = WorkshopClient.live(
            store: try WorkshopStore(path: ":memory:"), clock: clock, simulatedLatency: true
        )
        let finished = Mutex(false)
        let task = Task {
            try await call.make(on: client)
            finished.withLock { $0 = true }
        }
        try await Self.waitUntilSleeping(on: clock)

        await clock.advance(by: call.latency.lowerBound - .milliseconds(1))
        await Self.letOtherTasksRun()
        #expect(!finished.withLock { $0 }, "returned before \(call.latency.lowerBound)")

        await clock.advance(by: call.latency.upperBound - call.latency.lowerBound + .milliseconds(1))
        try await task.value
        #expect(finished.withLock { $0 })
    }

    @Test(arguments: [0, 500, 1000])
    func theRandomDelayIsTakenInWholeMilliseconds(offset: Int) async throws {
        let clock = TestClock()
        let latency = SimulatedLatency(clock: clock, isEnabled: true) { $0.lowerBound + offset }
        let finished = Mutex(false)
        let task = Task {
            try await latency.wait(SimulatedLatency.order)
            finished.withLock { $0 = true }
        }
        try await Self.waitUntilSleeping(on: clock)
        await clock.advance(by: .milliseconds(1000 + offset - 1))
        await Self.letOtherTasksRun()
        #expect(!finished.withLock { $0 })
        await clock.advance(by: .milliseconds(1))
        try await task.value
    }

    @Test func anOutOfRangeRandomNumberIsClampedToTheRange() async throws {
        let clock = TestClock()
        let latency = SimulatedLatency(clock: clock, isEnabled: true) { _ in 60_000 }
        let task = Task { try await latency.wait(SimulatedLatency.shipping) }
        try await Self.waitUntilSleeping(on: clock)
        await clock.advance(by: .seconds(1))
        try await task.value
    }

    @Test func fiftyConcurrentOrdersOfOneCheckoutThroughTheClientMakeOneOrder() async throws {
        try await withTemporaryDatabasePath { path in
            let store = try WorkshopStore(path: path)
            let client = WorkshopClient.live(store: store, clock: ContinuousClock())
            let request = OrderFixture.request(checkoutID: "async-hammer", guitar: Guitar(fretboard: .blackLimba))
            let numbers = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<50 {
                    group.addTask { try await client.placeOrder(request).number }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(numbers.count == 1)
            #expect(try await store.openOrderCount() == 1)
            #expect(try await store.stock(of: .fretboard(.blackLimba)) == 1)
        }
    }

    /// Waits until something sleeps on `clock`, so that advancing it is measured from that sleep.
    private static func waitUntilSleeping(on clock: TestClock<Duration>) async throws {
        for _ in 0..<10_000 {
            // `checkSuspension` throws exactly when a sleep is pending.
            if (try? await clock.checkSuspension()) == nil { return }
            await Task.yield()
        }
        Issue.record("nothing ever slept on the clock")
    }

    private static func letOtherTasksRun() async {
        for _ in 0..<100 { await Task.yield() }
    }
}
