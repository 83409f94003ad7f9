import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// Orders placed while one is being written share the next commit; one refused inside it is
/// undone alone, and every other is stored and answered as if it had been placed on its own.
@Suite struct WorkshopStoreOrderCommitsTests {
    enum Answer: Equatable {
        case placed(Order)
        case refused(OrderError)
    }

    @Test(
        "orders queued behind one being written share a commit: a short wood and a repeated checkout are undone alone",
        arguments: StoreBackend.all)
    func ordersQueuedShareACommitAndFailAlone(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let admin = clients.admin
            try await WorkshopClientContractTests.setStock(.body(.koa), to: 1, on: admin)
            let mahogany = try #require(try await WorkshopClientContractTests.inStock(.body(.mahogany), on: admin))

            let (queued, queuedContinuation) = AsyncStream<Int>.makeStream()
            let (inFlight, inFlightContinuation) = AsyncStream<Void>.makeStream()
            let store = WorkshopStore(
                database: clients.store.database, estimateRule: .standard, now: clients.store.now,
                ordersQueued: { queuedContinuation.yield($0) })
            let koaPair = CartLine(guitar: Guitar(body: .koa), quantity: 2)
            let behind: [(name: String, request: OrderRequest)] = [
                ("a", OrderFixture.request(checkoutID: "commit-a")),
                ("short", OrderFixture.request(checkoutID: "commit-short", lines: [koaPair])),
                ("a again", OrderFixture.request(checkoutID: "commit-a")),
                ("b", OrderFixture.request(checkoutID: "commit-b")),
            ]

            let answers = try await withThrowingTaskGroup(of: (String, Answer).self) { group in
                group.addTask {
                    let order = try await store.placeOrder(OrderFixture.request(checkoutID: "commit-first")) {
                        // Held in its transaction until every order behind it has queued: they
                        // are written together, in the next commit.
                        inFlightContinuation.yield()
                        for await waiting in queued where waiting >= behind.count { break }
                    }
                    return ("first", .placed(order))
                }
                for await _ in inFlight { break }
                for (name, request) in behind {
                    group.addTask {
                        do {
                            return (name, .placed(try await store.placeOrder(request)))
                        } catch let refusal as OrderError {
                            return (name, .refused(refusal))
                        }
                    }
                }
                return try await group.reduce(into: [String: Answer]()) { $0[$1.0] = $1.1 }
            }

            #expect(answers["short"] == .refused(.unavailable(missing: ["Koa body blanks"])))
            guard case .placed(let a) = answers["a"], case .placed(let again) = answers["a again"],
                case .placed(let b) = answers["b"], case .placed(let first) = answers["first"]
            else {
                Issue.record("every order but the short one is placed: \(answers)")
                return
            }
            #expect(a == again, "a checkout ordered twice in one commit is one order")
            #expect(Set([first.number, a.number, b.number]).count == 3)
            for order in [first, a, b] {
                #expect(try await clients.workshop.order(order.number) == order)
            }
            #expect(try await clients.workshop.recentOrders(10).count == 3)
            let koa = try await WorkshopClientContractTests.inStock(.body(.koa), on: admin)
            #expect(koa == 1, "the short order took nothing")
            #expect(try await WorkshopClientContractTests.inStock(.body(.mahogany), on: admin) == mahogany - 3)
        }
    }
}
