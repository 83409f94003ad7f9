import Testing

@testable import LuthierDomain

@Suite struct ScarceWoodRuleTests {
    static let rule = ScarceWoodRule(scarceAt: 12, perOrder: 2, perCustomer: 4, window: .seconds(86_400))
    static let stock: [StockedWood: Int] = [
        .body(.koa): 6, .body(.mahogany): 40, .fretboard(.ebony): 8, .fretboard(.rosewood): 50,
        .body(.blackLimba): 0,
    ]

    @Test func aWoodIsScarceWhileInStockAtOrBelowTheMark() {
        let needs = [
            WoodNeed(wood: .body(.koa), count: 1), WoodNeed(wood: .body(.mahogany), count: 9),
            WoodNeed(wood: .fretboard(.ebony), count: 3), WoodNeed(wood: .body(.blackLimba), count: 1),
        ]
        // Black Limba is out: the order is unavailable, which is another refusal.
        #expect(Self.rule.scarceNeeds(needs, stock: Self.stock).map(\.wood) == [.body(.koa), .fretboard(.ebony)])
        #expect(ScarceWoodRule.off.scarceNeeds(needs, stock: Self.stock).isEmpty)
        #expect(!ScarceWoodRule.off.canMakeAWoodScarce && Self.rule.canMakeAWoodScarce)
    }

    @Test func anOrderTakingMoreThanItsShareOfAScarceWoodIsRefusedNamingTheWoodAndTheLimit() {
        let three = [WoodNeed(wood: .body(.koa), count: 3), WoodNeed(wood: .fretboard(.rosewood), count: 3)]
        #expect(
            Self.rule.refusal(ordering: three, stock: Self.stock)
                == "An order may take at most 2 Koa body blanks while 12 or fewer are in stock (6 are); this one "
                + "takes 3. Please order fewer, or contact the workshop.")
        let two = [WoodNeed(wood: .body(.koa), count: 2), WoodNeed(wood: .body(.mahogany), count: 30)]
        #expect(Self.rule.refusal(ordering: two, stock: Self.stock) == nil)
        #expect(ScarceWoodRule.off.refusal(ordering: three, stock: Self.stock) == nil)
    }
}
