import Foundation
import LuthierDomain
import TestSupport
import Testing

@testable import LuthierFeatures

/// The floor's list of orders in progress: always sorted oldest first, each order once, whatever
/// is placed, moved or finished, across the chunks it is kept in.
@Suite struct OrderListTests {
    typealias Fixture = WorkshopFloorFixture

    @Test func placingMovingAndFinishingKeepsItSortedAsAnArrayWould() throws {
        // Orders placed in a shuffled order (several at one minute), then moved and finished at
        // random: the list against a sorted array, over several chunks.
        var generator = SeededGenerator(seed: 7)
        let orders = (1...700).map { Fixture.order($0, minutes: Double($0 / 3)) }.shuffled(using: &generator)
        var list = OrderList()
        var reference: [Order] = []
        func check() {
            #expect(Array(list) == reference)
            #expect(list.count == reference.count)
        }
        for order in orders {
            #expect(list.position(of: order) == nil)
            list.insert(order)
            reference.append(order)
            reference.sort(by: OrderList.isOlder)
        }
        check()
        for order in orders.shuffled(using: &generator).prefix(500) {
            let position = try #require(list.position(of: order))
            if Bool.random(using: &generator) {
                list.remove(at: position)
                reference.removeAll { $0.number == order.number }
            } else {
                let moved = Fixture.moved(order, to: .bodyShaping)
                list.replace(at: position, with: moved)
                let index = try #require(reference.firstIndex { $0.number == order.number })
                reference[index] = moved
            }
        }
        check()
        #expect(Array(list.reversed()) == reference.reversed())
    }

    @Test func finishingEveryOrderInAnyOrderEmptiesIt() throws {
        // Chunks shrinking and emptied in any order: after each order finished, the list is the
        // array without it.
        var generator = SeededGenerator(seed: 11)
        let orders = (1...600).map { Fixture.order($0, minutes: Double($0)) }
        var list = OrderList(orders)
        var reference = orders
        let copy = list
        for order in orders.shuffled(using: &generator) {
            let position = try #require(list.position(of: order))
            #expect(list[position] == order)
            list.remove(at: position)
            reference.removeAll { $0.number == order.number }
            #expect(list == reference)
            #expect(list.position(of: order) == nil)
        }
        #expect(list.isEmpty && list == OrderList())
        // A copy taken before is not changed by what the removals did to the chunks it shared.
        #expect(copy == orders)
        list.insert(orders[0])
        #expect(list == [orders[0]])
    }

    @Test func listsOfTheSameOrdersAreEqualHoweverTheyWereMade() {
        let orders = (1...300).map { Fixture.order($0) }
        var grown = OrderList()
        for order in orders.reversed() { grown.insert(order) }
        let made = OrderList(orders.shuffled())
        #expect(grown == made)
        #expect(grown.hashValue == made.hashValue)
        #expect(made == orders)
        var changed = made
        changed.replace(at: changed.startIndex, with: Fixture.moved(orders[0], to: .setup))
        #expect(changed != made)
        // A repeated number is listed once.
        #expect(OrderList(orders + orders).count == orders.count)
        #expect(OrderList().isEmpty && OrderList() == [])
    }
}
