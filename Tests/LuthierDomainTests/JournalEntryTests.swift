import Foundation
import Testing

@testable import LuthierDomain

/// Which events make a story and what it says: the rules both stores only write.
@Suite struct JournalEntryTests {
    static let order = Order(
        number: "LU-K00001", accessKey: "key", checkoutID: "checkout",
        lines: [CartLine(guitar: Guitar(shape: .sharpV, color: .dusk), quantity: 2)], shipping: .ground,
        currency: .usd, rate: 1,
        quote: Quote(
            lines: [CartLine(guitar: Guitar(shape: .sharpV, color: .dusk), quantity: 2)],
            shipping: ShippingOption(method: .ground, price: ShippingMethod.ground.price), rate: ExchangeRate.dollar()),
        status: .setup, placedAt: Date(timeIntervalSince1970: 0), sessionKey: "session")

    @Test func onlySetupAndShippedAreTold() {
        for stage in OrderStatus.allCases {
            let entry = JournalEntry.reached(stage, by: Self.order)
            switch stage {
            case .setup:
                #expect(
                    entry?.title
                        == "In setup: Dusk Sharp V with Mahogany body and Rosewood fretboard (and 1 more) gets its strings and action"
                )
            case .shipped:
                #expect(
                    entry?.title
                        == "Shipped: Dusk Sharp V with Mahogany body and Rosewood fretboard (and 1 more) is on its way")
            default:
                #expect(entry == nil, "\(stage)")
            }
            #expect(entry.map { !$0.title.contains("LU-") } ?? true, "a story never names the order")
        }
    }

    @Test func anAdjustmentTellsARestockOrTheLastPiecesGoing() {
        let koa = StockedWood.body(.koa)
        #expect(JournalEntry.adjusted(koa, by: 3, inStockAfter: 9).map(\.title) == ["Restocked: 3 Koa body blanks"])
        #expect(JournalEntry.adjusted(koa, by: -2, inStockAfter: 4).isEmpty)
        #expect(
            JournalEntry.adjusted(koa, by: -4, inStockAfter: 0).map(\.title) == [
                "Out of Koa body blanks: new builds with it wait for the next delivery"
            ])
    }

    @Test func anOrderTellsEveryWoodItTakesTheLastPiecesOf() {
        let needs = WoodNeed.of([CartLine(guitar: Guitar(body: .koa, fretboard: .ebony), quantity: 2)])
        let entries = JournalEntry.ranOut(taking: needs, from: [.body(.koa): 2, .fretboard(.ebony): 5])
        #expect(entries.map(\.title) == ["Out of Koa body blanks: new builds with it wait for the next delivery"])
        #expect(JournalEntry.ranOut(taking: needs, from: [.body(.koa): 0, .fretboard(.ebony): 3]).isEmpty)
    }

    @Test func theOwnersStoryNeedsATitleOnOneLineAndAnHTTPLink() throws {
        #expect(try JournalEntry.owner(title: "  Open day  ").title == "Open day")
        #expect(try JournalEntry.owner(title: "Open day").by == "owner")
        #expect(try JournalEntry.owner(title: "Open day", url: "https://example.com/x").url == "https://example.com/x")
        #expect(throws: JournalRefusal.title) { try JournalEntry.owner(title: "  ") }
        #expect(throws: JournalRefusal.title) { try JournalEntry.owner(title: "two\nlines") }
        #expect(throws: JournalRefusal.title) { try JournalEntry.owner(title: String(repeating: "a", count: 201)) }
        #expect(throws: JournalRefusal.url("javascript:alert(1)")) {
            try JournalEntry.owner(title: "x", url: "javascript:alert(1)")
        }
        #expect(JournalRefusal.title.description.hasPrefix("title: "))
        #expect(JournalRefusal.url("ftp://x").description.hasPrefix("url: 'ftp://x'"))
    }
}
