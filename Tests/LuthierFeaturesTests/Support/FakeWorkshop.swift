import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization
import Testing

/// A workshop that counts every call, answers from values the test sets, and can hold calls open
/// (a gate) so that a test sees the loading state and sends more inputs meanwhile.
final class FakeWorkshop: Sendable {
    struct Counts: Equatable {
        var availability = 0
        var estimate = 0
        var shippingOptions = 0
        var placeOrder = 0
    }

    private struct State {
        var counts = Counts()
        var availability: Availability = .available
        var failEstimate = false
        var refuseOrder: OrderError?
        var gateOpen = true
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    var counts: Counts { state.withLock { $0.counts } }

    func set(availability: Availability) { state.withLock { $0.availability = availability } }
    func failEstimates() { state.withLock { $0.failEstimate = true } }
    func refuseOrders(with error: OrderError) { state.withLock { $0.refuseOrder = error } }

    /// Holds every call until `openGate()`.
    func closeGate() { state.withLock { $0.gateOpen = false } }

    func openGate() {
        let waiting = state.withLock { state in
            state.gateOpen = true
            defer { state.waiting.removeAll() }
            return state.waiting
        }
        for continuation in waiting { continuation.resume() }
    }

    /// Calls held at the gate right now.
    var waitingCalls: Int { state.withLock { $0.waiting.count } }

    private func pass() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.gateOpen { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    var client: WorkshopClient {
        WorkshopClient(
            availability: { _ in
                self.state.withLock { $0.counts.availability += 1 }
                await self.pass()
                return self.state.withLock { $0.availability }
            },
            estimate: { _ in
                self.state.withLock { $0.counts.estimate += 1 }
                await self.pass()
                if self.state.withLock({ $0.failEstimate }) { throw URLError(.cannotConnectToHost) }
                return BuildEstimate(months: 3)
            },
            shippingOptions: { _ in
                self.state.withLock { $0.counts.shippingOptions += 1 }
                await self.pass()
                return ShippingOption.standard
            },
            placeOrder: { request in
                self.state.withLock { $0.counts.placeOrder += 1 }
                await self.pass()
                if let refusal = self.state.withLock({ $0.refuseOrder }) { throw refusal }
                return Order(
                    number: "LU-TEST01", accessKey: "key", checkoutID: request.checkoutID, guitar: request.guitar,
                    shipping: request.shipping, currency: request.rate.currency, rate: request.rate.perDollar,
                    quote: request.quote, status: .placed, placedAt: Date(timeIntervalSince1970: 0),
                    sessionKey: request.sessionKey
                )
            },
            order: { _ in
                Issue.record("the checkout never reads orders back")
                return nil
            }
        )
    }
}
