import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

/// Orders for the floor's tests: numbered, placed `minutes` after `WorkshopFloorFixture.base`.
enum WorkshopFloorFixture {
    static let base = LuthierEnvironment.testNow

    static func order(
        _ index: Int, minutes: Double? = nil, quantity: Int = 1, shipping: ShippingMethod = .ground,
        status: OrderStatus = .woodSelection, stageStartedAt: Date? = nil
    ) -> Order {
        let request = OrderRequest(
            checkoutID: "checkout-\(index)", lines: [CartLine(guitar: .standard, quantity: quantity)],
            shipping: ShippingOption(method: shipping, price: shipping.price), rate: .dollar(),
            sessionKey: "session")
        return Order(
            number: String(format: "LU-%06d", index), accessKey: "key", checkoutID: request.checkoutID,
            lines: request.lines, shipping: shipping, currency: .usd, rate: 1, quote: request.quote, status: status,
            placedAt: base.addingTimeInterval((minutes ?? Double(index)) * 60), stageStartedAt: stageStartedAt,
            sessionKey: "session")
    }

    static func moved(_ order: Order, to status: OrderStatus, at date: Date? = nil) -> Order {
        var moved = order
        moved.status = status
        moved.stageStartedAt = date ?? order.stageStartedAt.addingTimeInterval(10)
        return moved
    }
}

@Suite struct WorkshopFloorStateTests {
    typealias Fixture = WorkshopFloorFixture
    let base = WorkshopFloorFixture.base

    func reduce(_ state: WorkshopFloorState, _ events: [WorkshopFloorState.Event]) -> WorkshopFloorState {
        events.reduce(state, WorkshopFloorState.reduce)
    }

    @Test func anEmptyFloor() {
        let state = WorkshopFloorState(now: base)
        #expect(state.output == WorkshopFloorOutput(updatedAt: base))
        #expect(state.today == Date(timeIntervalSince1970: 1_899_936_000))
        #expect(
            WorkshopFloorState.startOfUTCDay(containing: Date(timeIntervalSince1970: 86_400 * 3 - 0.001))
                == Date(timeIntervalSince1970: 86_400 * 2))
    }

    @Test func placedOrdersGrowASortedListOfTheTenNewest() {
        var state = WorkshopFloorState(now: base)
        // Placed out of order (a slow request's order arrives late): the lists stay sorted.
        let orders = (1...12).map { Fixture.order($0, quantity: $0 % 2 + 1) }
        for index in [3, 1, 2, 4, 6, 5, 7, 8, 9, 10, 11, 12] {
            state = WorkshopFloorState.reduce(state, .placed(orders[index - 1], at: base.addingTimeInterval(900)))
        }
        #expect(state.recentOrders == Array(orders.reversed().prefix(10)))
        #expect(state.recentOrders.count == WorkshopFloorState.recentLimit)
        #expect(state.inProgress == orders)
        #expect(state.guitarsOrderedToday == orders.map(\.guitarCount).reduce(0, +))
        #expect(state.updatedAt == base.addingTimeInterval(900))
        #expect(state.output.recentOrders == state.recentOrders)
        #expect(state.output.inProgress == state.inProgress)
    }

    @Test func theSameOrderTwiceIsOneOrder() {
        let order = Fixture.order(1, quantity: 3)
        let once = WorkshopFloorState.reduce(WorkshopFloorState(now: base), .placed(order, at: base))
        #expect(once.guitarsOrderedToday == 3)
        // An idempotent repeat (a second click) changes nothing, not even the time.
        let twice = WorkshopFloorState.reduce(once, .placed(order, at: base.addingTimeInterval(5)))
        #expect(twice == once)
        // Nor does a repeat of an order that has moved on since.
        let moved = WorkshopFloorState.reduce(once, .advanced([Fixture.moved(order, to: .bodyShaping)], at: base))
        #expect(WorkshopFloorState.reduce(moved, .placed(order, at: base)) == moved)
    }

    @Test func aLoadReplacesEverythingSortedDedupedAndCapped() {
        let orders = (1...14).map { Fixture.order($0) }
        let finished = Fixture.moved(orders[0], to: .shipped)
        let state = WorkshopFloorState.reduce(
            WorkshopFloorState(now: base),
            .loaded(
                recentOrders: orders.shuffled() + [orders[13]], inProgress: [finished] + orders.dropFirst().reversed(),
                guitarsOrderedToday: 40, at: base.addingTimeInterval(60)))
        #expect(state.recentOrders == Array(orders.reversed().prefix(10)))
        #expect(state.inProgress == Array(orders.dropFirst()))
        #expect(state.guitarsOrderedToday == 40)
        #expect(state.updatedAt == base.addingTimeInterval(60))
    }

    @Test func aStageChangeUpdatesBothListsAndAFinishedOrderLeavesTheBoard() {
        let orders = (1...3).map { Fixture.order($0) }
        let loaded = WorkshopFloorState.reduce(
            WorkshopFloorState(now: base),
            .loaded(recentOrders: orders.reversed(), inProgress: orders, guitarsOrderedToday: 3, at: base))
        let shaped = Fixture.moved(orders[1], to: .bodyShaping)
        let later = base.addingTimeInterval(10)
        let state = WorkshopFloorState.reduce(loaded, .advanced([shaped], at: later))
        #expect(state.recentOrders == [orders[2], shaped, orders[0]])
        #expect(state.inProgress == [orders[0], shaped, orders[2]])
        #expect(state.guitarsOrderedToday == 3)
        #expect(state.updatedAt == later)

        let shipped = Fixture.moved(orders[0], to: .shipped)
        let pickedUp = Fixture.moved(orders[2], to: .readyForPickup)
        let done = WorkshopFloorState.reduce(state, .advanced([shipped, pickedUp], at: later))
        #expect(done.recentOrders == [pickedUp, shaped, shipped])
        #expect(done.inProgress == [shaped])
        // Nothing moved: nothing changes, not even the time.
        #expect(WorkshopFloorState.reduce(done, .advanced([], at: later.addingTimeInterval(10))) == done)
    }

    @Test func anOrderToldAgainAsItStandsChangesNothingNotEvenTheTime() {
        let orders = (1...3).map { Fixture.order($0) }
        var loaded = WorkshopFloorState(now: base)
        loaded.apply(.loaded(recentOrders: orders.reversed(), inProgress: orders, guitarsOrderedToday: 3, at: base))
        let later = base.addingTimeInterval(10)
        #expect(WorkshopFloorState.reduce(loaded, .advanced([orders[1]], at: later)) == loaded)
        #expect(WorkshopFloorState.reduce(loaded, .changed(orders[0], at: later)) == loaded)
        #expect(WorkshopFloorState.reduce(loaded, .placed(orders[2], at: later)) == loaded)
        // Moved where it stands: its place among the others is by when it was placed.
        var state = loaded
        state.apply(.advanced([Fixture.moved(orders[0], to: .bodyShaping)], at: later))
        #expect(state.inProgress.map(\.number) == orders.map(\.number))
        #expect(state.inProgress.first?.status == .bodyShaping)
        #expect(state.updatedAt == later)
    }

    @Test func anAdminChangeUpdatesAKnownOrderAndNeverAddsAnUnknownOne() {
        let orders = (1...3).map { Fixture.order($0) }
        let loaded = WorkshopFloorState.reduce(
            WorkshopFloorState(now: base),
            .loaded(recentOrders: orders.reversed(), inProgress: orders, guitarsOrderedToday: 3, at: base))
        let later = base.addingTimeInterval(30)
        let cancelled = Fixture.moved(orders[1], to: .cancelled, at: later)
        let state = WorkshopFloorState.reduce(loaded, .changed(cancelled, at: later))
        #expect(state.recentOrders == [orders[2], cancelled, orders[0]])
        #expect(state.inProgress == [orders[0], orders[2]])
        #expect(state.guitarsOrderedToday == 3)
        #expect(state.updatedAt == later)
        // An order the floor does not show stays unshown, and is not counted as ordered today.
        let unknown = Fixture.moved(Fixture.order(9, minutes: -600), to: .collected, at: later)
        #expect(WorkshopFloorState.reduce(state, .changed(unknown, at: later)) == state)
    }

    @Test func anOrderTheFloorDidNotKnowIsAddedWhereItBelongs() {
        // Ten newer orders on the floor; an order from before them moves (another server placed it).
        let orders = (1...10).map { Fixture.order($0, minutes: Double(100 + $0)) }
        let loaded = WorkshopFloorState.reduce(
            WorkshopFloorState(now: base),
            .loaded(recentOrders: orders, inProgress: orders, guitarsOrderedToday: 10, at: base))
        let old = Fixture.moved(Fixture.order(0, minutes: 50), to: .finishing)
        let state = WorkshopFloorState.reduce(loaded, .advanced([old], at: base))
        #expect(state.inProgress == [old] + orders)
        // Not among the ten newest, and not counted again.
        #expect(state.recentOrders == orders.reversed())
        #expect(state.guitarsOrderedToday == 10)
        // A new one from that other server, first seen moving, is among them and counted.
        let new = Fixture.moved(Fixture.order(11, minutes: 200), to: .bodyShaping)
        let more = WorkshopFloorState.reduce(state, .advanced([new], at: base))
        #expect(more.recentOrders.first == new)
        #expect(more.recentOrders.count == 10)
        #expect(more.guitarsOrderedToday == 11)
        // A repeat of an old, finished order that is not among the newest changes nothing.
        let oldFinished = Fixture.moved(Fixture.order(12, minutes: 10), to: .shipped)
        #expect(WorkshopFloorState.reduce(more, .placed(oldFinished, at: base)) == more)
    }

    @Test func todaysGuitarsStartAgainAtMidnightUTC() {
        let today = WorkshopFloorState.startOfUTCDay(containing: base)
        let tomorrow = today.addingTimeInterval(86_400)
        let lateOrder = Fixture.order(1, minutes: tomorrow.timeIntervalSince(base) / 60 - 1, quantity: 2)
        var state = WorkshopFloorState.reduce(
            WorkshopFloorState(now: base),
            .loaded(recentOrders: [], inProgress: [], guitarsOrderedToday: 7, at: base))
        state = WorkshopFloorState.reduce(state, .placed(lateOrder, at: lateOrder.placedAt))
        #expect(state.guitarsOrderedToday == 9)
        // The first event after midnight turns the day, even one that moves nothing.
        state = WorkshopFloorState.reduce(state, .advanced([], at: tomorrow.addingTimeInterval(1)))
        #expect(state.guitarsOrderedToday == 0)
        #expect(state.today == tomorrow)
        #expect(state.updatedAt == tomorrow.addingTimeInterval(1))
        // An order placed before midnight that arrives after it is yesterday's.
        let lateArrival = Fixture.order(2, minutes: tomorrow.timeIntervalSince(base) / 60 - 0.5)
        state = WorkshopFloorState.reduce(state, .placed(lateArrival, at: tomorrow.addingTimeInterval(2)))
        #expect(state.guitarsOrderedToday == 0)
        #expect(state.recentOrders.first == lateArrival)
        let next = Fixture.order(3, minutes: tomorrow.timeIntervalSince(base) / 60 + 1, quantity: 3)
        state = WorkshopFloorState.reduce(state, .placed(next, at: next.placedAt))
        #expect(state.guitarsOrderedToday == 3)
    }
}
