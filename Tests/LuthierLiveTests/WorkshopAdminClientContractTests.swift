import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// What `WorkshopAdminClient` promises, checked through the interface alone for every store in
/// `StoreBackend.all`; and what the shop's own writes keep true together (stock plus what orders
/// took is what there was), also when many orders race for the last pieces.
@Suite("WorkshopAdminClient contract")
struct WorkshopAdminClientContractTests {
    static let koa = Guitar(body: .koa)

    @Test(
        "stock changes are audited, refusals write nothing, and a sold-out wood is named", arguments: StoreBackend.all)
    func stockAdjustments(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let admin = clients.admin
            let koa = StockedWood.body(.koa)
            let start = try #require(try await admin.stockLevels().first { $0.wood == koa })
            #expect(start.inStock == WorkshopStore.initialStock[koa])
            let restock = try await admin.adjustStock(koa, 4, "delivery")
            #expect(restock.inStockAfter == start.inStock + 4)
            await #expect(throws: StockRefusal.self) { try await admin.adjustStock(koa, -1_000, "too many") }
            _ = try await admin.adjustStock(koa, -(start.inStock + 4), "all to a show")
            #expect(try await admin.soldOut() == [koa])
            let audit = try await admin.stockAdjustments(10)
            #expect(audit.map(\.change) == [-(start.inStock + 4), 4])
            #expect(audit.map(\.note) == ["all to a show", "delivery"])
            #expect(try await admin.stockLevels().count == StockedWood.allCases.count)
        }
    }

    @Test(
        "an order leaves the woods out of stock after it, its own last piece and others', read in its own statement",
        arguments: StoreBackend.all)
    func soldOutAfterAnOrder(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (workshop, admin, store) = (clients.workshop, clients.admin, clients.store)
            let koa = StockedWood.body(.koa)
            let ebony = StockedWood.fretboard(.ebony)
            _ = try await admin.adjustStock(koa, 2 - (try await admin.inStock()[koa] ?? 0), "two left")
            _ = try await admin.adjustStock(ebony, -(try await admin.inStock()[ebony] ?? 0), "none left")
            #expect(admin.soldOutAfterOrder != nil)
            let first = try await workshop.placeOrder(
                OrderFixture.request(checkoutID: "sold-out-1", guitar: Self.koa))
            // One koa left: only the ebony, which the order did not touch, is out.
            #expect(store.soldOutAfterOrders.take(for: first.number) == [ebony])
            let last = try await workshop.placeOrder(
                OrderFixture.request(checkoutID: "sold-out-2", guitar: Self.koa))
            #expect(try await admin.soldOut(afterOrder: last.number) == [koa, ebony])
            // Taken once: asked again, the stock is read, and says the same.
            #expect(store.soldOutAfterOrders.take(for: last.number) == nil)
            #expect(try await admin.soldOut(afterOrder: last.number) == [koa, ebony])
            #expect(try await admin.soldOut() == [koa, ebony])
            // The woods out of stock were rewritten as they were, and not booked.
            #expect(try await admin.inStock()[ebony] == 0)
            #expect(try await admin.stockAdjustments(10).count == 2)
        }
    }

    @Test(
        "a cancelled order gives its woods back, audited; a pickup is collected once ready", arguments: StoreBackend.all
    )
    func cancelAndCollect(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (workshop, admin) = (clients.workshop, clients.admin)
            let koa = StockedWood.body(.koa)
            let before = try #require(try await admin.stockLevels().first { $0.wood == koa })
            let order = try await workshop.placeOrder(
                OrderFixture.request(checkoutID: "admin-cancel", lines: [CartLine(guitar: Self.koa, quantity: 2)]))
            #expect(try await admin.stockLevels().first { $0.wood == koa }?.reserved == 2)
            // What is in stock alone reads as the levels do, held pieces gone.
            let levels = try await admin.stockLevels()
            #expect(try await admin.inStock() == Dictionary(uniqueKeysWithValues: levels.map { ($0.wood, $0.inStock) }))
            #expect(try await admin.inStock()[koa] == before.inStock - 2)
            let cancelled = try await admin.cancelOrder(order.number, "customer asked")
            #expect(cancelled.status == .cancelled)
            #expect(try await admin.stockLevels().first { $0.wood == koa } == before)
            #expect(try await admin.stageHistory(order.number).map(\.status) == [.woodSelection, .cancelled])
            #expect(try await admin.stageHistory(order.number).last?.note == "customer asked")
            await #expect(throws: OrderChangeRefusal.notCancellable(order.number, .cancelled)) {
                try await admin.cancelOrder(order.number, "again")
            }
            await #expect(throws: OrderChangeRefusal.noSuchOrder("LU-NOPE22")) {
                try await admin.cancelOrder("LU-NOPE22", "none")
            }

            let pickup = try await workshop.placeOrder(
                OrderFixture.request(checkoutID: "admin-pickup", shipping: .pickup))
            await #expect(throws: OrderChangeRefusal.notCollectable(pickup.number, .woodSelection)) {
                try await admin.markCollected(pickup.number)
            }
            let pace = WorkshopPace(perStage: .seconds(1))
            while try await !workshop.advanceStages(pickup.placedAt.addingTimeInterval(60), pace, nil).isEmpty {}
            #expect(try await admin.markCollected(pickup.number).status == .collected)
            #expect(try await admin.orders(.collected, nil, 10).map(\.number) == [pickup.number])
            #expect(try await admin.orders(nil, String(pickup.number.suffix(4)), 10).map(\.number) == [pickup.number])
            #expect(try await admin.orders(nil, nil, 10).count == 2)
            #expect(try await admin.order(pickup.number)?.status == .collected)
        }
    }

    @Test("discount codes are unique whatever their case, and expire once", arguments: StoreBackend.all)
    func discountCodes(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let admin = clients.admin
            #expect(try await admin.discountCodes().isEmpty)
            let codes = try await admin.addDiscountCode(DiscountCode(code: "Spring15", percent: 15))
            #expect(codes.map(\.code) == ["Spring15"])
            await #expect(throws: DiscountCodeRefusal.exists("Spring15")) {
                try await admin.addDiscountCode(DiscountCode(code: "SPRING15", percent: 50))
            }
            let expired = try await admin.expireDiscountCode("spring15")
            #expect(expired.first?.expires != nil)
            await #expect(throws: DiscountCodeRefusal.alreadyExpired("Spring15")) {
                try await admin.expireDiscountCode("SPRING15")
            }
            await #expect(throws: DiscountCodeRefusal.noSuchCode("NOPE")) { try await admin.expireDiscountCode("NOPE") }
        }
    }

    @Test(
        "twelve orders racing for the last three Koa blanks: three are placed, the rest refused, stock + taken as before",
        arguments: StoreBackend.all)
    func racingOrdersNeverOversell(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (workshop, admin) = (clients.workshop, clients.admin)
            let koa = StockedWood.body(.koa)
            let start = try #require(try await admin.stockLevels().first { $0.wood == koa })
            _ = try await admin.adjustStock(koa, 3 - start.inStock, "three left")
            let placed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        do {
                            _ = try await workshop.placeOrder(
                                OrderFixture.request(checkoutID: "race-\(index)", guitar: Self.koa))
                            return true
                        } catch OrderError.unavailable {
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(placed == 3)
            let after = try #require(try await admin.stockLevels().first { $0.wood == koa })
            #expect(after.inStock == 0)
            #expect(after.inStock + after.reserved + after.taken == 3)
        }
    }
}
