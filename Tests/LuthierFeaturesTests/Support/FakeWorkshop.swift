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
        /// Placing orders throws `StoreDown`, as a locked or full database would.
        var failOrders = false
        var orderRequests: [OrderRequest] = []
        var gateOpen = true
        var waiting: [CheckedContinuation<Void, Never>] = []
        var floor = Floor()
    }

    /// The workshop floor's side of the fake: stored orders that move through their stages the way
    /// the live store moves them (in whole milliseconds, one stage per call, each new stage
    /// starting one pace after the old one did).
    struct Floor {
        /// Every stored order, by the order it was stored in.
        var orders: [Order] = []
        var counts = FloorCounts()
        /// The next this many floor calls throw, as a database that is down would.
        var failures = 0
        /// Every stage change made, in order.
        var moves: [Move] = []
        /// The term each pass carried, in order (a failed pass's too).
        var passTerms: [FloorTerm?] = []
        /// The `since` of every `guitarsOrdered` call.
        var guitarsAskedSince: [Date] = []
    }

    struct FloorCounts: Equatable {
        var advanceStages = 0
        var nextStageChange = 0
        var recentOrders = 0
        var ordersInProgress = 0
        var guitarsOrdered = 0
    }

    /// One order moved from one stage to the next, its new stage starting at `startedAt`.
    struct Move: Equatable {
        var number: String
        var from: OrderStatus
        var to: OrderStatus
        var startedAt: Date
    }

    /// The database is down.
    struct StoreDown: Error {}

    private let state = Mutex(State())
    /// What "other instances" of the shop do, as a test tells it (``changeElsewhere(_:)``).
    private let elsewhere = AsyncStream.makeStream(of: WorkshopChange.self)

    /// Tells the floor following this workshop that another instance did `change`.
    func changeElsewhere(_ change: WorkshopChange) {
        elsewhere.continuation.yield(change)
    }

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
    /// Orders fail as the store's own failures do (not a refusal), until `failOrders(false)`.
    func failOrders(_ fail: Bool = true) { state.withLock { $0.failOrders = fail } }

    /// Stores `order` (replacing one with its number) for the floor calls, as placing it would.
    func store(_ order: Order) {
        state.withLock { state in
            if let index = state.floor.orders.firstIndex(where: { $0.number == order.number }) {
                state.floor.orders[index] = order
            } else {
                state.floor.orders.append(order)
            }
        }
    }

    /// The stored order numbered `number`.
    func storedOrder(_ number: String) -> Order? {
        state.withLock { state in state.floor.orders.first { $0.number == number } }
    }

    /// The next `count` floor calls throw `StoreDown`.
    func failFloorCalls(_ count: Int) { state.withLock { $0.floor.failures = count } }

    var floorCounts: FloorCounts { state.withLock { $0.floor.counts } }
    var moves: [Move] { state.withLock { $0.floor.moves } }
    var passTerms: [FloorTerm?] { state.withLock { $0.floor.passTerms } }
    var guitarsAskedSince: [Date] { state.withLock { $0.floor.guitarsAskedSince } }

    /// Counts a floor call, and throws when the store is to be down for it.
    private func floorCall(_ count: (inout FloorCounts) -> Void) throws {
        let fails = state.withLock { state in
            count(&state.floor.counts)
            guard state.floor.failures > 0 else { return false }
            state.floor.failures -= 1
            return true
        }
        if fails { throw StoreDown() }
    }

    private static func milliseconds(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1_000).rounded())
    }

    private static func milliseconds(_ pace: WorkshopPace) -> Int64 {
        let (seconds, attoseconds) = pace.perStage.components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    private static func isNewer(_ a: Order, _ b: Order) -> Bool {
        a.placedAt != b.placedAt ? a.placedAt > b.placedAt : a.number > b.number
    }

    private func advanceStages(now: Date, pace: WorkshopPace, term: FloorTerm?) throws -> [Order] {
        state.withLock { $0.floor.passTerms.append(term) }
        try floorCall { $0.advanceStages += 1 }
        let step = Self.milliseconds(pace)
        return state.withLock { state in
            var moved: [Order] = []
            let due = state.floor.orders.indices
                .filter { index in
                    let order = state.floor.orders[index]
                    return !order.status.isFinished
                        && Self.milliseconds(order.stageStartedAt) + step <= Self.milliseconds(now)
                }
                .sorted { Self.isNewer(state.floor.orders[$1], state.floor.orders[$0]) }
            for index in due {
                let order = state.floor.orders[index]
                guard let next = order.status.next(for: order.shipping) else { continue }
                var changed = order
                changed.status = next
                changed.stageStartedAt = Date(
                    timeIntervalSince1970: Double(Self.milliseconds(order.stageStartedAt) + step) / 1_000)
                state.floor.orders[index] = changed
                state.floor.moves.append(
                    Move(number: order.number, from: order.status, to: next, startedAt: changed.stageStartedAt))
                moved.append(changed)
            }
            return moved
        }
    }

    private func nextStageChange(pace: WorkshopPace) throws -> Date? {
        try floorCall { $0.nextStageChange += 1 }
        let step = Self.milliseconds(pace)
        return state.withLock { state in
            state.floor.orders.filter { !$0.status.isFinished }.map { Self.milliseconds($0.stageStartedAt) }.min()
                .map { Date(timeIntervalSince1970: Double($0 + step) / 1_000) }
        }
    }

    private func recentOrders(limit: Int) throws -> [Order] {
        try floorCall { $0.recentOrders += 1 }
        return state.withLock { state in Array(state.floor.orders.sorted(by: Self.isNewer).prefix(max(0, limit))) }
    }

    private func ordersInProgress() throws -> [Order] {
        try floorCall { $0.ordersInProgress += 1 }
        return state.withLock { state in
            state.floor.orders.filter { !$0.status.isFinished }.sorted { Self.isNewer($1, $0) }
        }
    }

    private func guitarsOrdered(since: Date) throws -> Int {
        try floorCall { $0.guitarsOrdered += 1 }
        return state.withLock { state in
            state.floor.guitarsAskedSince.append(since)
            return state.floor.orders.filter { $0.placedAt >= since }.map(\.guitarCount).reduce(0, +)
        }
    }

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

    /// The order this fake places for `request`: always number LU-TEST01 with key "key".
    static func order(for request: OrderRequest) -> Order {
        Order(
            number: "LU-TEST01", accessKey: "key", checkoutID: request.checkoutID, lines: request.lines,
            shipping: request.shipping, currency: request.rate.currency, rate: request.rate.perDollar,
            discountCode: request.discountCode, quote: request.quote, status: .woodSelection,
            placedAt: Date(timeIntervalSince1970: 0), sessionKey: request.sessionKey
        )
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
                if self.state.withLock({ $0.failOrders }) { throw StoreDown() }
                return Self.order(for: request)
            },
            // Only the floor reads orders back (what another instance changed); the checkout never does.
            order: { number in self.storedOrder(number) },
            advanceStages: { now, pace, term in try self.advanceStages(now: now, pace: pace, term: term) },
            nextStageChange: { pace in try self.nextStageChange(pace: pace) },
            recentOrders: { limit in try self.recentOrders(limit: limit) },
            ordersInProgress: { try self.ordersInProgress() },
            guitarsOrdered: { since in try self.guitarsOrdered(since: since) },
            changesElsewhere: { self.elsewhere.stream }
        )
    }
}
