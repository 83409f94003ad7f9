import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization
import Testing

/// A workshop that counts every call, records the lines each was asked about, answers from values
/// the test sets, and can hold calls open (a gate) so that a test sees the loading state and sends
/// more inputs meanwhile.
final class FakeWorkshop: Sendable {
    struct Counts: Equatable {
        var availability = 0
        var estimate = 0
        var shippingOptions = 0
        var placeOrder = 0
    }

    /// The lines each workshop question was asked about, one entry per call.
    struct Asked: Equatable {
        var availability: [[CartLine]] = []
        var estimate: [[CartLine]] = []
        var shippingOptions: [[CartLine]] = []
    }

    private struct State {
        var counts = Counts()
        var asked = Asked()
        /// Answers each line of an availability call in turn.
        var availabilityRule: @Sendable (CartLine) -> Availability = { _ in .available }
        /// When set, the whole answer to the next availability calls, whatever the lines.
        var availabilityAnswer: [Availability]?
        var estimate = BuildEstimate(months: 3)
        var failEstimate = false
        var refuseOrder: OrderError?
        var orderRequests: [OrderRequest] = []
        var gateOpen = true
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    var counts: Counts { state.withLock { $0.counts } }
    var asked: Asked { state.withLock { $0.asked } }
    /// Every order the workshop was asked to place, in order.
    var orderRequests: [OrderRequest] { state.withLock { $0.orderRequests } }

    /// Every line gets the same answer.
    func set(availability: Availability) { state.withLock { $0.availabilityRule = { _ in availability } } }
    /// Each line is answered by `rule`.
    func setAvailability(_ rule: @escaping @Sendable (CartLine) -> Availability) {
        state.withLock { $0.availabilityRule = rule }
    }
    /// Availability calls answer exactly `answers`, even if that is not one per line.
    func set(availabilityAnswers answers: [Availability]) { state.withLock { $0.availabilityAnswer = answers } }
    func set(estimate: BuildEstimate) { state.withLock { $0.estimate = estimate } }
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
            availability: { lines in
                self.state.withLock { state in
                    state.counts.availability += 1
                    state.asked.availability.append(lines)
                }
                await self.pass()
                return self.state.withLock { state in
                    state.availabilityAnswer ?? lines.map(state.availabilityRule)
                }
            },
            estimate: { lines in
                self.state.withLock { state in
                    state.counts.estimate += 1
                    state.asked.estimate.append(lines)
                }
                await self.pass()
                let (fails, estimate) = self.state.withLock { ($0.failEstimate, $0.estimate) }
                if fails { throw URLError(.cannotConnectToHost) }
                return estimate
            },
            shippingOptions: { lines in
                self.state.withLock { state in
                    state.counts.shippingOptions += 1
                    state.asked.shippingOptions.append(lines)
                }
                await self.pass()
                return ShippingOption.standard
            },
            placeOrder: { request in
                self.state.withLock { state in
                    state.counts.placeOrder += 1
                    state.orderRequests.append(request)
                }
                await self.pass()
                if let refusal = self.state.withLock({ $0.refuseOrder }) { throw refusal }
                return Order(
                    number: "LU-TEST01", accessKey: "key", checkoutID: request.checkoutID, lines: request.lines,
                    shipping: request.shipping, currency: request.rate.currency, rate: request.rate.perDollar,
                    discountCode: request.discountCode, quote: request.quote, status: .placed,
                    placedAt: Date(timeIntervalSince1970: 0), sessionKey: request.sessionKey
                )
            },
            order: { _ in
                Issue.record("the checkout never reads orders back")
                return nil
            }
        )
    }
}
