import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// Orders moving through the workshop's stages, stored in a real SQLite file.
@Suite struct WorkshopStoreStagesTests {
    static let v2 = "v2-order-lines-discounts-sessions-analytics"
    static let pace = WorkshopPace.demo
    static let step: TimeInterval = 10

    /// A store whose orders are placed at `now`'s time.
    static func store(at path: String, now: MovableNow) throws -> WorkshopStore {
        try WorkshopStore(path: path, now: { now.value })
    }

    /// `OrderFixture.placedAt` plus `paces` steps and `extra` seconds.
    static func time(_ paces: Double, plus extra: TimeInterval = 0) -> Date {
        OrderFixture.placedAt.addingTimeInterval(paces * step + extra)
    }

    // MARK: - Migration

    @Test func aV2OrderBecomesWoodSelectionBegunWhenItWasPlaced() async throws {
        try await withTemporaryDatabasePath { path in
            do {
                let old = try SQLiteDatabase(path: path, migratingUpTo: Self.v2)
                try old.execute(
                    sql: """
                        INSERT INTO orders (
                            number, access_key, checkout_id, shipping, currency, rate, base_price_minor,
                            additions_minor, discount_minor, discount_code, shipping_minor, total_minor, status,
                            placed_at, session_key
                        ) VALUES (
                            'LU-V2V2V2', 'key-v2', 'checkout-v2', 'pickup', 'USD', '1', 200000, 0, 20000,
                            'WELCOME10', 0, 180000, 'placed', 1750000000250, 'session-v2'
                        );
                        INSERT INTO order_lines (order_number, position, shape, color, body, fretboard, quantity)
                        VALUES ('LU-V2V2V2', 0, 'casual', 'natural', 'mahogany', 'rosewood', 2);
                        """)
            }
            let store = try WorkshopStore(path: path)
            #expect(try store.sqlite.appliedMigrations() == WorkshopStoreTests.migrations)
            #expect(try store.sqlite.tableNames() == WorkshopStoreTests.tables)
            let order = try #require(try await store.order(number: "LU-V2V2V2"))
            #expect(order.status == .woodSelection)
            #expect(order.placedAt == OrderFixture.placedAt)
            #expect(order.stageStartedAt == OrderFixture.placedAt)
            #expect(order.lines == [CartLine(guitar: .standard, quantity: 2)])
            #expect(order.discountCode == "WELCOME10")
            #expect(order.quote.total == .dollars(1_800))
            #expect(try await store.openOrderCount() == 1)
            #expect(try await store.ordersInProgress() == [order])
            // The migrated order moves on from when it was placed, like any other.
            #expect(try await store.nextStageChange(pace: Self.pace) == Self.time(1))
            let moved = try await store.advanceStages(now: Self.time(1), pace: Self.pace)
            #expect(moved.map(\.status) == [.bodyShaping])
            // A v2 table without the column no longer exists: new orders need their stage's start.
            #expect(throws: (any Error).self) {
                try store.sqlite.execute(
                    sql: """
                        INSERT INTO orders (
                            number, access_key, checkout_id, shipping, currency, rate, base_price_minor,
                            additions_minor, shipping_minor, total_minor, status, placed_at, session_key
                        ) VALUES ('LU-NOSTART', 'k', 'c', 'ground', 'USD', '1', 1, 0, 0, 1, 'setup', 0, 's')
                        """)
            }
        }
    }

    @Test func aFinishedOrUnknownStatusIsNotInProgress() async throws {
        let store = try WorkshopStore(path: ":memory:", now: { OrderFixture.placedAt })
        var orders: [Order] = []
        for index in 1...4 { orders.append(try await store.placeOrder(OrderFixture.request(checkoutID: "c\(index)"))) }
        try store.sqlite.execute(sql: "UPDATE orders SET status = 'shipped' WHERE number = '\(orders[0].number)'")
        try store.sqlite.execute(
            sql: "UPDATE orders SET status = 'readyForPickup' WHERE number = '\(orders[1].number)'")
        try store.sqlite.execute(sql: "UPDATE orders SET status = 'setup' WHERE number = '\(orders[2].number)'")
        // A status a later version might write is left alone rather than moved as if in progress.
        try store.sqlite.execute(sql: "UPDATE orders SET status = 'onHold' WHERE number = '\(orders[3].number)'")
        #expect(try await store.openOrderCount() == 1)
        #expect(try await store.ordersInProgress().map(\.number) == [orders[2].number])
        let moved = try await store.advanceStages(now: Self.time(1), pace: Self.pace)
        #expect(moved.map(\.number) == [orders[2].number])
        #expect(moved.map(\.status) == [.shipped])
        #expect(try await store.nextStageChange(pace: Self.pace) == nil)
        #expect(try await store.advanceStages(now: Self.time(100), pace: Self.pace) == [])
    }

    // MARK: - Advancing

    @Test func aNewOrderStartsAtWoodSelectionBegunWhenPlaced() async throws {
        let store = try WorkshopStore(path: ":memory:", now: { OrderFixture.placedAt })
        let order = try await store.placeOrder(OrderFixture.request())
        #expect(order.status == .woodSelection)
        #expect(order.stageStartedAt == OrderFixture.placedAt)
        #expect(try await store.order(number: order.number) == order)
    }

    @Test func nothingMovesBeforeItsPaceIsOver() async throws {
        let store = try WorkshopStore(path: ":memory:", now: { OrderFixture.placedAt })
        let order = try await store.placeOrder(OrderFixture.request())
        #expect(try await store.nextStageChange(pace: Self.pace) == Self.time(1))
        #expect(try await store.advanceStages(now: Self.time(1, plus: -0.001), pace: Self.pace) == [])
        #expect(try await store.order(number: order.number) == order)
        // Exactly one pace later it moves, its new stage begun when the old one was due.
        let moved = try await store.advanceStages(now: Self.time(1), pace: Self.pace)
        var expected = order
        expected.status = .bodyShaping
        expected.stageStartedAt = Self.time(1)
        #expect(moved == [expected])
        #expect(try await store.order(number: order.number) == expected)
        #expect(try await store.nextStageChange(pace: Self.pace) == Self.time(2))
        #expect(try await store.advanceStages(now: Self.time(1.5), pace: Self.pace) == [])
    }

    @Test func eachCallMovesAnOrderOneStageHoweverManyPacesHavePassed() async throws {
        let store = try WorkshopStore(path: ":memory:", now: { OrderFixture.placedAt })
        let order = try await store.placeOrder(OrderFixture.request(shipping: .express))
        // A year later (the server was down), each call still moves it exactly one stage, and the
        // stage starts are one pace apart: no stage is skipped and none drifts.
        let late = Self.time(100_000)
        var seen: [OrderStatus] = [order.status]
        for paces in 1...4 {
            #expect(try await store.nextStageChange(pace: Self.pace) == Self.time(Double(paces)))
            let moved = try await store.advanceStages(now: late, pace: Self.pace)
            #expect(moved.count == 1)
            #expect(moved.first?.stageStartedAt == Self.time(Double(paces)))
            seen += moved.map(\.status)
        }
        #expect(seen == OrderStatus.stages(for: .express))
        // Finished: never moves again, and nothing is due.
        #expect(try await store.advanceStages(now: late, pace: Self.pace) == [])
        #expect(try await store.nextStageChange(pace: Self.pace) == nil)
        #expect(try await store.order(number: order.number)?.status == .shipped)
        #expect(try await store.openOrderCount() == 0)
    }

    @Test func aPickupEndsReadyForPickup() async throws {
        let store = try WorkshopStore(path: ":memory:", now: { OrderFixture.placedAt })
        let order = try await store.placeOrder(OrderFixture.request(shipping: .pickup))
        var seen: [OrderStatus] = [order.status]
        for paces in 1...6 {
            seen += try await store.advanceStages(now: Self.time(Double(paces)), pace: Self.pace).map(\.status)
        }
        #expect(seen == [.woodSelection, .bodyShaping, .finishing, .setup, .readyForPickup])
        let finished = try #require(try await store.order(number: order.number))
        #expect(finished.status == .readyForPickup)
        // It finished at its fourth stage change and stays as it was.
        #expect(finished.stageStartedAt == Self.time(4))
        #expect(try await store.advanceStages(now: Self.time(1_000), pace: Self.pace) == [])
        #expect(try await store.order(number: order.number) == finished)
    }

    @Test func onlyDueOrdersMoveAndTheNextDueIsTheEarliest() async throws {
        let now = MovableNow(OrderFixture.placedAt)
        let store = try WorkshopStore(path: ":memory:", now: { now.value })
        let first = try await store.placeOrder(OrderFixture.request(checkoutID: "first"))
        now.value = Self.time(0, plus: 4)
        let second = try await store.placeOrder(OrderFixture.request(checkoutID: "second"))
        #expect(try await store.nextStageChange(pace: Self.pace) == Self.time(1))

        let moved = try await store.advanceStages(now: Self.time(1, plus: 1), pace: Self.pace)
        #expect(moved.map(\.number) == [first.number])
        #expect(try await store.nextStageChange(pace: Self.pace) == Self.time(1, plus: 4))
        #expect(try await store.order(number: second.number)?.status == .woodSelection)

        // Both due: both move, oldest first, in one call.
        let both = try await store.advanceStages(now: Self.time(2, plus: 5), pace: Self.pace)
        #expect(both.map(\.number) == [first.number, second.number])
        #expect(both.map(\.status) == [.finishing, .bodyShaping])
        #expect(try await store.nextStageChange(pace: Self.pace) == Self.time(2, plus: 4))
        // A slower pace makes the same stages due later; nothing moves at the old times.
        #expect(try await store.nextStageChange(pace: WorkshopPace(perStage: .seconds(60))) == Self.time(0, plus: 74))
        #expect(try await store.advanceStages(now: Self.time(3), pace: WorkshopPace(perStage: .seconds(60))) == [])
    }

    @Test func aRestartResumesFromTheStoredStages() async throws {
        try await withTemporaryDatabasePath { path in
            let now = MovableNow(OrderFixture.placedAt)
            let number: String
            do {
                let store = try Self.store(at: path, now: now)
                number = try await store.placeOrder(OrderFixture.request()).number
                #expect(
                    try await store.advanceStages(now: Self.time(1), pace: Self.pace).map(\.status) == [.bodyShaping])
                #expect(try await store.advanceStages(now: Self.time(2), pace: Self.pace).map(\.status) == [.finishing])
            }
            // Down for a while; the reopened file knows where the order is and when its stage began.
            let reopened = try Self.store(at: path, now: now)
            let order = try #require(try await reopened.order(number: number))
            #expect(order.status == .finishing)
            #expect(order.stageStartedAt == Self.time(2))
            #expect(try await reopened.nextStageChange(pace: Self.pace) == Self.time(3))
            #expect(try await reopened.advanceStages(now: Self.time(50), pace: Self.pace).map(\.status) == [.setup])
            do {
                // And again, mid catch-up: one more stage per call.
                let third = try Self.store(at: path, now: now)
                #expect(try await third.advanceStages(now: Self.time(50), pace: Self.pace).map(\.status) == [.shipped])
                #expect(try await third.advanceStages(now: Self.time(50), pace: Self.pace) == [])
            }
            #expect(try await reopened.order(number: number)?.stageStartedAt == Self.time(4))
        }
    }

    // MARK: - What the floor reads

    @Test func recentOrdersInProgressAndGuitarsOrderedSince() async throws {
        let now = MovableNow(OrderFixture.placedAt)
        let store = try WorkshopStore(path: ":memory:", now: { now.value })
        var placed: [Order] = []
        for index in 0..<12 {
            now.value = Self.time(0, plus: Double(index))
            placed.append(
                try await store.placeOrder(
                    OrderFixture.request(
                        checkoutID: "c\(index)", lines: [CartLine(guitar: .standard, quantity: index % 3 + 1)])))
        }
        #expect(try await store.recentOrders(limit: 10) == Array(placed.reversed().prefix(10)))
        #expect(try await store.recentOrders(limit: 0) == [])
        #expect(try await store.recentOrders(limit: 50) == Array(placed.reversed()))
        #expect(try await store.ordersInProgress() == placed)
        #expect(try await store.guitarsOrdered(since: OrderFixture.placedAt) == placed.map(\.guitarCount).reduce(0, +))
        #expect(try await store.guitarsOrdered(since: Self.time(0, plus: 10)) == 2 + 3)
        #expect(try await store.guitarsOrdered(since: Self.time(0, plus: 11.001)) == 0)

        // The first two finish; they leave the orders in progress and stay among the orders.
        try store.sqlite.execute(sql: "UPDATE orders SET status = 'shipped' WHERE checkout_id IN ('c0', 'c1')")
        #expect(try await store.ordersInProgress() == Array(placed.dropFirst(2)))
        #expect(try await store.recentOrders(limit: 50).suffix(2).map(\.status) == [.shipped, .shipped])
        #expect(try await store.guitarsOrdered(since: OrderFixture.placedAt) == placed.map(\.guitarCount).reduce(0, +))
    }

    @Test func theLiveClientMovesTheStagesToo() async throws {
        let store = try WorkshopStore(path: ":memory:", now: { OrderFixture.placedAt })
        let client = WorkshopClient.live(store: store, clock: TestClock(), simulatedLatency: true)
        let order = try await store.placeOrder(OrderFixture.request(shipping: .pickup))
        #expect(try await client.recentOrders(10) == [order])
        #expect(try await client.ordersInProgress() == [order])
        #expect(try await client.guitarsOrdered(OrderFixture.placedAt) == 1)
        #expect(try await client.nextStageChange(Self.pace) == Self.time(1))
        // Not slowed by the simulated latency: the test clock never moves here.
        let moved = try await client.advanceStages(Self.time(1), Self.pace, nil)
        #expect(moved.map(\.status) == [.bodyShaping])
        #expect(try await client.order(order.number) == moved.first)
        #expect(try await client.advanceStages(Self.time(1), Self.pace, nil) == [])
    }
}
