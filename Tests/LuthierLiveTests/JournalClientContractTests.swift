import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// What `JournalClient` promises, through the interface alone, for every store in
/// `StoreBackend.all`: stories kept and listed newest first, and the workshop's own stories
/// written with what they tell (a restock, the last piece taken, an order reaching setup and
/// shipped), never for a refused change.
@Suite("JournalClient contract")
struct JournalClientContractTests {
    @Test("the owner's stories are kept and listed newest first, as many as asked", arguments: StoreBackend.all)
    func ownersStories(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let journal = clients.journal
            #expect(try await journal.newStoryIDs(10).isEmpty)
            let first = try await journal.add(try JournalEntry.owner(title: "Open workshop on Saturday"))
            let second = try await journal.add(
                try JournalEntry.owner(title: "A new batch of koa", url: "https://example.com/koa"))
            #expect(second.id > first.id)
            #expect(try await journal.newStoryIDs(10) == [second.id, first.id])
            #expect(try await journal.newStoryIDs(1) == [second.id])
            #expect(try await journal.story(first.id) == first)
            let stored = try #require(try await journal.story(second.id))
            #expect(stored.by == "owner")
            #expect(stored.url == "https://example.com/koa")
            #expect(stored.time == Date(timeIntervalSince1970: 1_800_000_000))
            #expect(try await journal.story(second.id + 100) == nil)
        }
    }

    @Test(
        "a restock and the last pieces going each write their story; a refused change writes none",
        arguments: StoreBackend.all)
    func stockStories(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (admin, journal) = (clients.admin, clients.journal)
            let koa = StockedWood.body(.koa)
            let limba = StockedWood.body(.blackLimba)
            _ = try await admin.adjustStock(koa, 4, "delivery")
            await #expect(throws: StockRefusal.self) { try await admin.adjustStock(koa, -1_000, "too many") }
            let limbaStock = try #require(try await admin.stockLevels().first { $0.wood == limba }).inStock
            _ = try await admin.adjustStock(limba, -1, "one to a show")
            _ = try await admin.adjustStock(limba, -(limbaStock - 1), "the rest to a show")
            let titles = try await Self.titles(journal)
            #expect(
                titles == [
                    "Out of Black Limba body blanks: new builds with it wait for the next delivery",
                    "Restocked: 4 Koa body blanks",
                ])
        }
    }

    @Test(
        "an order taking the last pieces, and reaching setup and shipped, writes its stories",
        arguments: StoreBackend.all)
    func orderStories(backend: StoreBackend) async throws {
        try await backend.with { clients in
            let (workshop, admin, journal) = (clients.workshop, clients.admin, clients.journal)
            let ebony = StockedWood.fretboard(.ebony)
            let inStock = try #require(try await admin.stockLevels().first { $0.wood == ebony }).inStock
            let guitar = Guitar(shape: .longV, color: .sky, body: .mahogany, fretboard: .ebony)
            let order = try await workshop.placeOrder(
                OrderFixture.request(checkoutID: "journal-order", lines: [CartLine(guitar: guitar, quantity: inStock)]))
            // Refused for want of ebony: no story.
            await #expect(throws: OrderError.self) {
                try await workshop.placeOrder(
                    OrderFixture.request(checkoutID: "journal-refused", guitar: guitar))
            }
            let pace = WorkshopPace(perStage: .seconds(10))
            let late = order.placedAt.addingTimeInterval(3_600)
            while try await workshop.advanceStages(late, pace, nil).first != nil {}
            let more = inStock > 1 ? " (and \(inStock - 1) more)" : ""
            #expect(
                try await Self.titles(journal) == [
                    "Shipped: Sky Long V with Mahogany body and Ebony fretboard\(more) is on its way",
                    "In setup: Sky Long V with Mahogany body and Ebony fretboard\(more) gets its strings and action",
                    "Out of Ebony fretboards: new builds with it wait for the next delivery",
                ])
        }
    }

    static func titles(_ journal: JournalClient) async throws -> [String] {
        var titles: [String] = []
        for id in try await journal.newStoryIDs(50) {
            if let story = try await journal.story(id) { titles.append(story.title) }
        }
        return titles
    }
}
