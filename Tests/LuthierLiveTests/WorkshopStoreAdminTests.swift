import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// What the shop's admin does to the store: audited stock adjustments, cancelling and collecting
/// orders with their history, and discount codes, each judged and written in one transaction.
@Suite struct WorkshopStoreAdminTests {
    static let limba = Guitar(shape: .casual, color: .natural, body: .blackLimba, fretboard: .blackLimba)

    static func store(now: MovableNow = MovableNow(OrderFixture.placedAt)) throws -> WorkshopStore {
        try WorkshopStore(path: ":memory:", now: { now.value })
    }

    static func level(_ wood: StockedWood, in store: WorkshopStore) async throws -> StockLevel {
        try #require(try await store.stockLevels().first { $0.wood == wood })
    }

    // MARK: - Stock

    @Test func levelsCountReservedAndUsedWoodPerStageGroup() async throws {
        let store = try Self.store()
        let shipped = try await store.placeOrder(OrderFixture.request(checkoutID: "a", guitar: Self.limba))
        _ = try await store.placeOrder(
            OrderFixture.request(checkoutID: "b", lines: [CartLine(guitar: Self.limba, quantity: 1)]))
        try store.sqlite.execute(sql: "UPDATE orders SET status = 'shipped' WHERE number = '\(shipped.number)'")
        let body = try await Self.level(.body(.blackLimba), in: store)
        #expect(body == StockLevel(wood: .body(.blackLimba), inStock: 1, reserved: 1, taken: 1))
        let fretboard = try await Self.level(.fretboard(.blackLimba), in: store)
        #expect(fretboard == StockLevel(wood: .fretboard(.blackLimba), inStock: 0, reserved: 1, taken: 1))
        #expect(try await store.stockLevels().map(\.wood) == StockedWood.allCases)
    }

    @Test func anAdjustmentChangesTheStockAndIsKeptWithItsNote() async throws {
        let now = MovableNow(OrderFixture.placedAt)
        let store = try Self.store(now: now)
        let booked = try await store.adjustStock(of: .body(.blackLimba), by: 4, note: "Delivery")
        #expect(
            booked
                == StockAdjustment(
                    wood: .body(.blackLimba), change: 4, inStockAfter: 7, note: "Delivery",
                    madeAt: OrderFixture.placedAt))
        now.value = OrderFixture.placedAt.addingTimeInterval(60)
        _ = try await store.adjustStock(of: .fretboard(.ebony), by: -3, note: "Two cracked, one lost")
        #expect(try await store.stock(of: .body(.blackLimba)) == 7)
        #expect(try await store.stock(of: .fretboard(.ebony)) == 5)
        #expect(try await store.stockAdjustments(limit: 10).map(\.note) == ["Two cracked, one lost", "Delivery"])
        #expect(try await store.stockAdjustments(limit: 1).count == 1)
    }

    @Test(arguments: [0, -4, 1_001, -1_001])
    func aChangeOutOfBoundsIsRefusedAndChangesNothing(change: Int) async throws {
        let store = try Self.store()
        await #expect(throws: StockRefusal.self) {
            try await store.adjustStock(of: .body(.blackLimba), by: change, note: "x")
        }
        #expect(try await store.stock(of: .body(.blackLimba)) == 3)
        #expect(try await store.stockAdjustments(limit: 10).isEmpty)
    }

    @Test func theRefusalSaysHowMuchThereIs() async throws {
        let store = try Self.store()
        do {
            _ = try await store.adjustStock(of: .body(.koa), by: -7, note: "count")
            Issue.record("a change below zero was booked")
        } catch let refusal as StockRefusal {
            #expect(
                refusal.description
                    == "change: -7 would leave -1 Koa body blanks; there are 6, so at most 6 can be taken away.")
        }
    }

    // MARK: - Orders

    @Test func cancellingAnOrderAtWoodSelectionReturnsItsWoodsAndKeepsItsHistory() async throws {
        let now = MovableNow(OrderFixture.placedAt)
        let store = try Self.store(now: now)
        let order = try await store.placeOrder(
            OrderFixture.request(checkoutID: "c", lines: [CartLine(guitar: Self.limba, quantity: 2)]))
        #expect(try await store.stock(of: .fretboard(.blackLimba)) == 0)
        now.value = OrderFixture.placedAt.addingTimeInterval(90)
        let cancelled = try await store.cancelOrder(number: order.number, note: "Customer called")
        #expect(cancelled.status == .cancelled)
        #expect(cancelled.stageStartedAt == now.value)
        #expect(try await store.stock(of: .body(.blackLimba)) == 3)
        #expect(try await store.stock(of: .fretboard(.blackLimba)) == 2)
        #expect(try await Self.level(.body(.blackLimba), in: store).reserved == 0)
        #expect(
            try await store.stageHistory(ofOrder: order.number) == [
                StageEntry(status: .woodSelection, startedAt: OrderFixture.placedAt),
                StageEntry(status: .cancelled, startedAt: now.value, note: "Customer called"),
            ])
        let returned = try await store.stockAdjustments(limit: 10)
        #expect(returned.map(\.change) == [2, 2])
        #expect(returned.allSatisfy { $0.note == "Order \(order.number) cancelled: Customer called" })
        // A cancelled order is finished: the floor never moves it, and it cannot be cancelled again.
        #expect(try await store.ordersInProgress().isEmpty)
        await #expect(throws: OrderChangeRefusal.notCancellable(order.number, .cancelled)) {
            try await store.cancelOrder(number: order.number, note: "again")
        }
    }

    @Test func anOrderPastWoodSelectionCannotBeCancelled() async throws {
        let store = try Self.store()
        let order = try await store.placeOrder(OrderFixture.request(checkoutID: "c", guitar: Self.limba))
        _ = try await store.advanceStages(now: OrderFixture.placedAt.addingTimeInterval(10), pace: .demo)
        await #expect(throws: OrderChangeRefusal.notCancellable(order.number, .bodyShaping)) {
            try await store.cancelOrder(number: order.number, note: "late")
        }
        #expect(try await store.stock(of: .body(.blackLimba)) == 2)
        #expect(try await store.order(number: order.number)?.status == .bodyShaping)
        await #expect(throws: OrderChangeRefusal.noSuchOrder("LU-NOSUCH")) {
            try await store.cancelOrder(number: "LU-NOSUCH", note: "x")
        }
    }

    @Test func onlyAPickupReadyForPickupCanBeCollected() async throws {
        let store = try Self.store()
        let pickup = try await store.placeOrder(OrderFixture.request(checkoutID: "p", shipping: .pickup))
        await #expect(throws: OrderChangeRefusal.notCollectable(pickup.number, .woodSelection)) {
            try await store.markCollected(number: pickup.number)
        }
        for pace in 1...4 {
            _ = try await store.advanceStages(
                now: OrderFixture.placedAt.addingTimeInterval(Double(pace) * 10), pace: .demo)
        }
        #expect(try await store.order(number: pickup.number)?.status == .readyForPickup)
        let collected = try await store.markCollected(number: pickup.number)
        #expect(collected.status == .collected)
        #expect(
            try await store.stageHistory(ofOrder: pickup.number).map(\.status) == [
                .woodSelection, .bodyShaping, .finishing, .setup, .readyForPickup, .collected,
            ])
        // Collected guitars used their woods.
        #expect(try await Self.level(.body(.mahogany), in: store).taken == 1)
    }

    @Test func ordersAreFoundByStageAndByPartOfTheirNumber() async throws {
        let now = MovableNow(OrderFixture.placedAt)
        let store = try Self.store(now: now)
        var placed: [Order] = []
        for index in 0..<3 {
            now.value = OrderFixture.placedAt.addingTimeInterval(Double(index))
            placed.append(try await store.placeOrder(OrderFixture.request(checkoutID: "c\(index)")))
        }
        _ = try await store.cancelOrder(number: placed[1].number, note: "x")
        #expect(
            try await store.orders(stage: nil, numberContaining: nil, limit: 10).map(\.number)
                == placed.reversed().map(\.number))
        #expect(
            try await store.orders(stage: .cancelled, numberContaining: nil, limit: 10).map(\.number) == [
                placed[1].number
            ])
        #expect(
            try await store.orders(stage: .woodSelection, numberContaining: nil, limit: 1).map(\.number) == [
                placed[2].number
            ]
        )
        let part = String(placed[0].number.suffix(4))
        #expect(
            try await store.orders(stage: nil, numberContaining: part, limit: 10).map(\.number).contains(
                placed[0].number))
        #expect(try await store.orders(stage: nil, numberContaining: "LU-0", limit: 10).isEmpty)
    }

    // MARK: - Discount codes

    @Test func codesAreAddedOnceInAnyCaseAndExpiredNow() async throws {
        let now = MovableNow(OrderFixture.placedAt)
        let store = try Self.store(now: now)
        try await store.addDiscountCode(DiscountCode(code: "SPRING15", percent: 15))
        await #expect(throws: DiscountCodeRefusal.exists("SPRING15")) {
            try await store.addDiscountCode(DiscountCode(code: "spring15", percent: 50))
        }
        now.value = OrderFixture.placedAt.addingTimeInterval(5)
        let expired = try #require(try await store.expireDiscountCode("Spring15").first)
        #expect(expired == DiscountCode(code: "SPRING15", percent: 15, expires: now.value))
        #expect(!expired.isValid(at: now.value))
        await #expect(throws: DiscountCodeRefusal.alreadyExpired("SPRING15")) {
            try await store.expireDiscountCode("SPRING15")
        }
        await #expect(throws: DiscountCodeRefusal.noSuchCode("NOPE")) { try await store.expireDiscountCode("NOPE") }
        #expect(try await store.discountCodes() == [expired])
    }

    @Test func seedingAddsOnlyCodesNotStoredSoAnExpiredCodeStaysExpired() async throws {
        let store = try Self.store()
        #expect(
            try await store.seedDiscountCodes([DiscountCode(code: "WELCOME10", percent: 10)]).map(\.code) == [
                "WELCOME10"
            ])
        _ = try await store.expireDiscountCode("WELCOME10")
        let seeded = try await store.seedDiscountCodes([
            DiscountCode(code: "welcome10", percent: 10), DiscountCode(code: "BAND", percent: 20),
        ])
        #expect(seeded.map(\.code) == ["BAND", "WELCOME10"] || seeded.map(\.code) == ["WELCOME10", "BAND"])
        #expect(seeded.first { $0.code == "WELCOME10" }?.expires != nil)
    }

    // MARK: - Migration

    @Test func aV4OrderGetsTheHistoryThatCanBeKnown() async throws {
        try await withTemporaryDatabasePath { path in
            do {
                let old = try SQLiteDatabase(path: path, migratingUpTo: "v4-session-leftovers")
                try old.execute(
                    sql: """
                        INSERT INTO orders (
                            number, access_key, checkout_id, shipping, currency, rate, base_price_minor,
                            additions_minor, discount_minor, discount_code, shipping_minor, total_minor, status,
                            placed_at, session_key, stage_started_at
                        ) VALUES (
                            'LU-V4V4V4', 'key', 'checkout', 'ground', 'USD', '1', 200000, 0, 0, NULL, 0, 200000,
                            'finishing', 1750000000250, 'session', 1750000020250
                        );
                        INSERT INTO order_lines (order_number, position, shape, color, body, fretboard, quantity)
                        VALUES ('LU-V4V4V4', 0, 'casual', 'natural', 'mahogany', 'rosewood', 1);
                        """)
            }
            let store = try WorkshopStore(path: path)
            #expect(
                try await store.stageHistory(ofOrder: "LU-V4V4V4") == [
                    StageEntry(status: .woodSelection, startedAt: OrderFixture.placedAt),
                    StageEntry(status: .finishing, startedAt: OrderFixture.placedAt.addingTimeInterval(20)),
                ])
            #expect(try await store.discountCodes().isEmpty)
            #expect(try await store.stockAdjustments(limit: 5).isEmpty)
        }
    }

    // MARK: - The live client

    @Test func theLiveClientAnswersFromTheStore() async throws {
        let store = try Self.store()
        let client = WorkshopAdminClient.live(store: store)
        let booked = try await client.adjustStock(.body(.koa), 2, "Delivery")
        #expect(booked.inStockAfter == 8)
        #expect(try await client.stockLevels().first { $0.wood == .body(.koa) }?.inStock == 8)
        #expect(try await client.soldOut().isEmpty)
        _ = try await client.adjustStock(.fretboard(.blackLimba), -2, "Cracked")
        try await store.setStock(of: .body(.swampAsh), to: 0)
        #expect(try await client.soldOut() == [.fretboard(.blackLimba), .body(.swampAsh)])
        let order = try await store.placeOrder(OrderFixture.request(checkoutID: "c"))
        #expect(try await client.order(order.number) == order)
        #expect(try await client.cancelOrder(order.number, "x").status == .cancelled)
        await #expect(throws: OrderChangeRefusal.self) { try await client.markCollected(order.number) }
        #expect(try await client.addDiscountCode(DiscountCode(code: "A", percent: 5)).map(\.code) == ["A"])
        #expect(try await client.expireDiscountCode("a").first?.expires != nil)
    }
}
