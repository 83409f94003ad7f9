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
        #expect(throws: JournalRefusal.title(problem: "it is empty")) { try JournalEntry.owner(title: "  ") }
        #expect(throws: JournalRefusal.title(problem: "it has a line break")) {
            try JournalEntry.owner(title: "two\nlines")
        }
        #expect(throws: JournalRefusal.title(problem: "it has 201 characters")) {
            try JournalEntry.owner(title: String(repeating: "a", count: 201))
        }
        #expect(throws: JournalRefusal.url("javascript:alert(1)")) {
            try JournalEntry.owner(title: "x", url: "javascript:alert(1)")
        }
        #expect(JournalRefusal.title(problem: "it is empty").description.hasPrefix("title: "))
        #expect(JournalRefusal.url("ftp://x").description.hasPrefix("url: 'ftp://x'"))
    }
}

/// The one-line rule counts bytes as well as characters and refuses what reorders text, and a
/// story from any source is shown by the owner's rules.
@Suite struct OneLineTextTests {
    @Test func oneCharacterCannotCarryKilobytes() {
        // One grapheme cluster: a letter with 20,000 combining marks, 40 KB.
        let heavy = "a" + String(repeating: "\u{0301}", count: 20_000)
        #expect(heavy.count == 1)
        #expect(heavy.oneLine(longest: 200) == nil)
        #expect(heavy.oneLineProblem(longest: 200) == "it takes 40001 bytes, over the 800 that 200 characters may take")
        #expect(throws: JournalRefusal.self) { try JournalEntry.owner(title: heavy) }
        #expect(StockAdjustment.note(heavy) == nil)
        // Any script's letters fit: 200 four-byte characters.
        #expect(String(repeating: "😀", count: 200).oneLine(longest: 200) != nil)
    }

    @Test func controlAndBidirectionalOverrideCharactersAreRefusedWithASentence() {
        #expect("Delivery\u{0007}".oneLineProblem(longest: 200) == "it has a control character (U+0007)")
        let reversed = "Delivery \u{202E}gnp.exe"
        #expect(reversed.oneLine(longest: 200) == nil)
        #expect(
            reversed.oneLineProblem(longest: 200)?.hasPrefix("it has a bidirectional control character (U+202E)")
                == true)
        for scalar in ["\u{202A}", "\u{202D}", "\u{2066}", "\u{2069}", "\u{200F}", "\u{061C}"] {
            #expect(("note " + scalar).oneLine(longest: 200) == nil, "\(scalar.unicodeScalars.first?.value ?? 0)")
        }
        let refusal = JournalRefusal.title(problem: "it has a control character (U+0007)")
        #expect(
            refusal.description
                == "title: a story needs a title of 1–200 characters on one line; it has a control character (U+0007).")
        // Plain text with accents and other scripts stays.
        #expect("Ébène d'Afrique, 黒檀".oneLine(longest: 200) == "Ébène d'Afrique, 黒檀")
    }

    @Test func aStoryFromAnySourceGetsTheOwnersRules() throws {
        let time = Date(timeIntervalSince1970: 1_800_000_000)
        for link in [
            "javascript:alert(1)", "data:text/html,<script>alert(1)</script>", "//evil.example/x", "ftp://x/y",
        ] {
            let story = try #require(JournalStory(id: 1, by: "x", time: time, title: "Hi", url: link).asShown())
            #expect(story.url == nil, "\(link)")
        }
        let kept = JournalStory(id: 2, by: "x", time: time, title: "Hi", url: "https://example.com/a").asShown()
        #expect(kept?.url == "https://example.com/a")

        let long = JournalStory(id: 3, by: "x", time: time, title: String(repeating: "b", count: 200_000)).asShown()
        #expect(long?.title.count == 200)
        #expect(long?.title.hasSuffix("…") == true)
        let lines = JournalStory(id: 4, by: "x", time: time, title: "one\nmore\u{202E}\ttitle  \u{0000}end").asShown()
        #expect(lines?.title == "one more title end")
        #expect(JournalStory(id: 5, by: "x", time: time, title: " \n\u{202E} ").asShown() == nil)
        let heavy = JournalStory(id: 6, by: "x", time: time, title: "a" + String(repeating: "\u{0301}", count: 5_000))
        #expect((heavy.asShown()?.title.utf8.count ?? 0) <= 800)
    }
}
