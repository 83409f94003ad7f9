import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// What `WorkshopClient` promises (its documentation), checked through the interface alone, so
/// that the same checks hold any store to it.
@Suite("WorkshopClient contract")
struct WorkshopClientContractTests {
    static let standard = CartLine(guitar: .standard, quantity: 1)
    static let limba = Guitar(fretboard: .blackLimba)

    /// Sets a wood's stock to `count` through the admin's interface.
    static func setStock(_ wood: StockedWood, to count: Int, on admin: WorkshopAdminClient) async throws {
        let level = try #require(try await admin.stockLevels().first { $0.wood == wood })
        _ = try await admin.adjustStock(wood, count - level.inStock, "contract test")
    }

    static func inStock(_ wood: StockedWood, on admin: WorkshopAdminClient) async throws -> Int? {
        try await admin.stockLevels().first { $0.wood == wood }?.inStock
    }

    @Test(
        "availability is judged on the whole order: two lines may each be buildable alone and not both",
        arguments: StoreBackend.all)
    func wholeOrderAvailability(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (client, admin) = (clients.workshop, clients.admin)
            try await Self.setStock(.fretboard(.blackLimba), to: 1, on: admin)
            let one = CartLine(guitar: Self.limba, quantity: 1)
            #expect(try await client.availability([one]) == [.available])
            #expect(
                try await client.availability([one, Self.standard, one]) == [
                    .unavailable(missing: ["Black Limba fretboards"]), .available,
                    .unavailable(missing: ["Black Limba fretboards"]),
                ])
        }
    }

    @Test(
        "an order takes its woods in one go; a repeat of its checkout returns the same order and takes nothing",
        arguments: StoreBackend.all)
    func ordersAreIdempotentAndTakeStock(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (client, admin) = (clients.workshop, clients.admin)
            let before = try #require(try await Self.inStock(.fretboard(.blackLimba), on: admin))
            let request = OrderFixture.request(checkoutID: "contract-1", guitar: Self.limba)
            let order = try await client.placeOrder(request)
            #expect(order.status == .woodSelection)
            #expect(try await client.placeOrder(request) == order)
            #expect(try await client.order(order.number) == order)
            #expect(try await Self.inStock(.fretboard(.blackLimba), on: admin) == before - 1)
            #expect(try await client.order("LU-NOPE22") == nil)
        }
    }

    @Test(
        "an order a wood cannot cover is refused, naming the wood, and writes nothing", arguments: StoreBackend.all)
    func refusedOrdersWriteNothing(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (client, admin) = (clients.workshop, clients.admin)
            try await Self.setStock(.body(.koa), to: 1, on: admin)
            let request = OrderFixture.request(
                checkoutID: "contract-koa", lines: [CartLine(guitar: Guitar(body: .koa), quantity: 2), Self.standard])
            await #expect(throws: OrderError.unavailable(missing: ["Koa body blanks"])) {
                try await client.placeOrder(request)
            }
            #expect(try await Self.inStock(.body(.koa), on: admin) == 1)
            #expect(try await client.recentOrders(10).isEmpty)
        }
    }

    @Test(
        "the estimate is the longest of the order's guitars, and grows with the open orders",
        arguments: StoreBackend.all)
    func estimates(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (client, admin) = (clients.workshop, clients.admin)
            #expect(try await client.estimate([Self.standard]) == BuildEstimate(months: 2))
            try await Self.setStock(.body(.koa), to: 3, on: admin)
            #expect(
                try await client.estimate([Self.standard, CartLine(guitar: Guitar(body: .koa), quantity: 1)]).months
                    == 3)
            _ = try await client.placeOrder(OrderFixture.request(checkoutID: "contract-open"))
            #expect(try await client.estimate([Self.standard]) == BuildEstimate(months: 3))
            #expect(try await client.shippingOptions([Self.standard]) == ShippingOption.standard)
        }
    }

    @Test(
        "a checkout's answers, asked together, are the three asked one by one",
        arguments: StoreBackend.all)
    func answersTogether(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (client, admin) = (clients.workshop, clients.admin)
            #expect(client.answersTogether != nil)
            try await Self.setStock(.body(.koa), to: 1, on: admin)
            _ = try await client.placeOrder(OrderFixture.request(checkoutID: "contract-backlog"))
            let koa = CartLine(guitar: Guitar(body: .koa), quantity: 1)
            for lines in [[Self.standard], [koa, Self.standard, koa], []] {
                let together = try await client.answers(for: lines)
                #expect(together.availability == (try await client.availability(lines)))
                #expect(together.estimate == (try await client.estimate(lines)))
                #expect(together.shippingOptions == (try await client.shippingOptions(lines)))
            }
            #expect(try await client.answers(for: [koa, koa]).availability.allSatisfy { $0 != .available })
        }
    }

    @Test(
        "stages move one per call, each starting when the last ended; none skipped, finished orders stay",
        arguments: StoreBackend.all)
    func stages(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let client = clients.workshop
            let pace = WorkshopPace(perStage: .seconds(10))
            let order = try await client.placeOrder(
                OrderFixture.request(checkoutID: "contract-stages", shipping: .pickup))
            let placed = order.placedAt
            #expect(try await client.ordersInProgress().map(\.number) == [order.number])
            #expect(try await client.nextStageChange(pace) == pace.stageEnds(startedAt: placed))
            #expect(try await client.advanceStages(placed.addingTimeInterval(9.999), pace, nil).isEmpty)
            // A server down for an hour: each call moves the order one stage, at that stage's true time.
            let late = placed.addingTimeInterval(3_600)
            var seen: [OrderStatus] = []
            while let moved = try await client.advanceStages(late, pace, nil).first {
                seen.append(moved.status)
            }
            #expect(seen == [.bodyShaping, .finishing, .setup, .readyForPickup])
            #expect(try await client.ordersInProgress().isEmpty)
            #expect(try await client.nextStageChange(pace) == nil)
            #expect(try await client.order(order.number)?.status == .readyForPickup)
        }
    }

    @Test(
        "an order takes the last pieces of its woods; the next is refused naming the wood, taking nothing",
        arguments: StoreBackend.all)
    func lastPieces(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (client, admin) = (clients.workshop, clients.admin)
            try await Self.setStock(.fretboard(.blackLimba), to: 3, on: admin)
            let mahogany = try #require(try await Self.inStock(.body(.mahogany), on: admin))
            // Two lines of the same wood: the whole order's need, taken in one go.
            let two = CartLine(guitar: Self.limba, quantity: 2)
            let one = CartLine(guitar: Self.limba, quantity: 1)
            _ = try await client.placeOrder(OrderFixture.request(checkoutID: "last-pieces", lines: [two, one]))
            #expect(try await Self.inStock(.fretboard(.blackLimba), on: admin) == 0)
            #expect(try await Self.inStock(.body(.mahogany), on: admin) == mahogany - 3)
            await #expect(throws: OrderError.unavailable(missing: ["Black Limba fretboards"])) {
                try await client.placeOrder(OrderFixture.request(checkoutID: "none-left", lines: [one]))
            }
            #expect(try await Self.inStock(.body(.mahogany), on: admin) == mahogany - 3)
            #expect(try await client.recentOrders(10).count == 1)
        }
    }

    @Test(
        "a pass in a term that has ended moves nothing; each stage keeps the term it moved in",
        arguments: StoreBackend.all)
    func floorTerms(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (client, store) = (clients.workshop, clients.store)
            let pace = WorkshopPace(perStage: .seconds(10))
            let order = try await client.placeOrder(
                OrderFixture.request(checkoutID: "contract-terms", shipping: .pickup))
            let old = try await store.beginFloorTerm()
            let new = try await store.beginFloorTerm()
            #expect(new > old)
            let due = order.placedAt.addingTimeInterval(10)
            await #expect(throws: WorkshopStoreError.floorTermEnded(term: old.number, current: new.number)) {
                try await client.advanceStages(due, pace, old)
            }
            #expect(try await client.order(order.number)?.status == .woodSelection)
            #expect(try await client.advanceStages(due, pace, new).map(\.status) == [.bodyShaping])
            // A lone instance's pass has no term and is never refused.
            #expect(try await client.advanceStages(due.addingTimeInterval(10), pace, nil).map(\.status) == [.finishing])
            let terms = try await store.database.read(
                "SELECT status, term FROM order_stages WHERE order_number = \(order.number) ORDER BY started_at")
            #expect(
                try terms.map { [try $0["status"] as String, (try $0["term"] as Int64?).map(String.init) ?? "none"] }
                    == [["woodSelection", "none"], ["bodyShaping", "\(new.number)"], ["finishing", "none"]])
        }
    }

    @Test("recent orders come newest first, as many as asked", arguments: StoreBackend.all)
    func recentOrders(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let client = clients.workshop
            var numbers: [String] = []
            for index in 0..<3 {
                numbers.append(
                    try await client.placeOrder(OrderFixture.request(checkoutID: "contract-\(index)")).number)
            }
            let recent = try await client.recentOrders(2).map(\.number)
            #expect(recent.count == 2)
            #expect(Set(recent).isSubset(of: Set(numbers)))
            #expect(try await client.recentOrders(10).count == 3)
        }
    }
}
