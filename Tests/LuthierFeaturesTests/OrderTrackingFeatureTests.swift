import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierFeatures

/// Following one order: the workshop floor's outputs are fed by the test, the store read back
/// through a fake that the test tells what to answer.
@Suite struct OrderTrackingFeatureTests {
    typealias Fixture = WorkshopFloorFixture

    final class Harness: Sendable {
        let floor: AsyncStream<WorkshopFloorOutput>
        let floorInput: AsyncStream<WorkshopFloorOutput>.Continuation
        /// What reading an order from the store answers (nil: an error).
        let stored = Mutex<Order??>(.none)
        let reads = Mutex(0)

        init() {
            (floor, floorInput) = AsyncStream<WorkshopFloorOutput>.makeStream()
        }

        func store(_ order: Order) -> TestStore<OrderTrackingFeature> {
            var workshop = WorkshopClient.failing(reporting: recordUnexpected)
            workshop.order = { _ in
                self.reads.withLock { $0 += 1 }
                guard let answer = self.stored.withLock({ $0 }) else { throw FakeWorkshop.StoreDown() }
                return answer
            }
            let floor = floor
            return TestStore(
                initialState: OrderTrackingFeature.State(order: order),
                reducer: OrderTrackingFeature(floor: { floor }, workshop: workshop))
        }

        func floorShows(inProgress: [Order] = [], recent: [Order] = []) -> WorkshopFloorOutput {
            let output = WorkshopFloorOutput(
                recentOrders: recent, inProgress: OrderList(inProgress), updatedAt: Fixture.base)
            floorInput.yield(output)
            return output
        }
    }

    @Test("an order on the floor follows its stages from the floor's outputs and stops once finished")
    func followsTheFloor() async {
        let harness = Harness()
        let order = Fixture.order(1, shipping: .ground)
        var store = harness.store(order)
        store.send(.start)
        let shaping = Fixture.moved(order, to: .bodyShaping)
        let first = harness.floorShows(inProgress: [shaping])
        await store.receive(.floorChanged(first)) { $0.order = shaping }
        // A floor change that does not move this order changes nothing.
        let other = harness.floorShows(inProgress: [shaping, Fixture.order(2)])
        await store.receive(.floorChanged(other))
        let shipped = Fixture.moved(shaping, to: .shipped)
        let last = harness.floorShows(recent: [shipped])
        await store.receive(.floorChanged(last)) { $0.order = shipped }
        // Finished: the subscription is cancelled, so later floor changes never arrive.
        _ = harness.floorShows(recent: [shipped, Fixture.order(3)])
        await store.finish()
        #expect(harness.reads.withLock { $0 } == 0)
    }

    @Test("an order gone from the floor's lists is read from the store; a failed read keeps the stage and is counted")
    func readsWhatTheFloorNoLongerLists() async {
        let harness = Harness()
        let order = Fixture.order(1, status: .setup)
        var store = harness.store(order)
        store.send(.start)
        let unlisted = harness.floorShows(recent: (2...11).map { Fixture.order($0) })
        await store.receive(.floorChanged(unlisted))
        await store.receive(.readFailed) { $0.failedReads = 1 }

        let shipped = Fixture.moved(order, to: .shipped)
        harness.stored.withLock { $0 = .some(shipped) }
        let again = harness.floorShows(recent: (2...11).map { Fixture.order($0) } + [Fixture.order(12)])
        await store.receive(.floorChanged(again))
        await store.receive(.orderRead(shipped)) { $0.order = shipped }
        await store.finish()
        #expect(harness.reads.withLock { $0 } == 2)
    }

    @Test("a finished order asks nothing at all")
    func aFinishedOrderAsksNothing() async {
        let harness = Harness()
        var store = harness.store(Fixture.order(1, status: .readyForPickup))
        store.send(.start)
        _ = harness.floorShows(inProgress: [Fixture.order(2)])
        await store.finish()
    }
}
