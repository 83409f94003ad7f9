import Foundation
import LuthierDomain
import LuthierFeatures

extension WorkshopClient {
    /// The workshop the server runs on: every call answered by `store`.
    ///
    /// With `simulatedLatency`, each call first waits as long as the original app's did
    /// (availability 1–2 s, estimate 0.7–1.5 s, shipping 0.3–1 s, order 1–2 s; see
    /// `SimulatedLatency`) on `clock`, so a demo shows the loading states and tests can drive
    /// them with a test clock. Off by default: a real shop answers as fast as its database does.
    public static func live(
        store: WorkshopStore,
        clock: any Clock<Duration>,
        simulatedLatency: Bool = false
    ) -> WorkshopClient {
        live(store: store, latency: SimulatedLatency(clock: clock, isEnabled: simulatedLatency))
    }

    /// As `live(store:clock:simulatedLatency:)`, with the latency spelled out (fixed delays in
    /// tests), and the changes other instances commit when the store is shared (PostgreSQL).
    public static func live(
        store: WorkshopStore, latency: SimulatedLatency,
        changesElsewhere: (@Sendable () -> AsyncStream<WorkshopChange>)? = nil
    ) -> WorkshopClient {
        var client = WorkshopClient(
            availability: { lines in
                try await latency.wait(SimulatedLatency.availability)
                return try await store.availability(for: lines)
            },
            estimate: { lines in
                try await latency.wait(SimulatedLatency.estimate)
                return try await store.estimate(for: lines)
            },
            shippingOptions: { _ in
                try await latency.wait(SimulatedLatency.shipping)
                // Every order ships the same ways; the lines are the argument so that could change.
                return ShippingOption.standard
            },
            placeOrder: { request in
                try await latency.wait(SimulatedLatency.order)
                return try await store.placeOrder(request)
            },
            order: { number in try await store.order(number: number) },
            // The workshop floor's own calls are never slowed down: they are not the customer's.
            advanceStages: { now, pace, term in try await store.advanceStages(now: now, pace: pace, term: term) },
            nextStageChange: { pace in try await store.nextStageChange(pace: pace) },
            recentOrders: { limit in try await store.recentOrders(limit: limit) },
            ordersInProgress: { try await store.ordersInProgress() },
            guitarsOrdered: { since in try await store.guitarsOrdered(since: since) }
        )
        client.answersTogether = { lines in
            // As long as the slowest of the three would take, asked at once.
            async let availabilityWait: Void = latency.wait(SimulatedLatency.availability)
            async let estimateWait: Void = latency.wait(SimulatedLatency.estimate)
            async let shippingWait: Void = latency.wait(SimulatedLatency.shipping)
            _ = try await (availabilityWait, estimateWait, shippingWait)
            let (availability, estimate) = try await store.availabilityAndEstimate(for: lines)
            return WorkshopAnswers(
                availability: availability, estimate: estimate, shippingOptions: ShippingOption.standard)
        }
        if let changesElsewhere { client.changesElsewhere = changesElsewhere }
        return client
    }
}
