import LuthierDomain
import Testing

@Suite("WoodNeed")
struct WoodNeedTests {
    static let limbaNeck = Guitar(body: .mahogany, fretboard: .blackLimba)
    static let ashRosewood = Guitar(body: .swampAsh, fretboard: .rosewood)
    static let mahoganyRosewood = Guitar(body: .mahogany, fretboard: .rosewood)

    @Test("needs add up per stock line, in the order the lines first name each wood, body before fretboard")
    func needsAddUp() {
        let lines = [
            CartLine(guitar: Self.limbaNeck, quantity: 2), CartLine(guitar: Self.ashRosewood, quantity: 1),
            CartLine(guitar: Self.mahoganyRosewood, quantity: 3),
        ]
        #expect(
            WoodNeed.of(lines) == [
                WoodNeed(wood: .body(.mahogany), count: 5), WoodNeed(wood: .fretboard(.blackLimba), count: 2),
                WoodNeed(wood: .body(.swampAsh), count: 1), WoodNeed(wood: .fretboard(.rosewood), count: 4),
            ])
        #expect(WoodNeed.of([]) == [])
    }

    @Test("an order is missing the woods whose stock is short of the whole order's need, and only those")
    func missing() {
        let needs = WoodNeed.of([
            CartLine(guitar: Self.limbaNeck, quantity: 1), CartLine(guitar: Self.mahoganyRosewood, quantity: 1),
        ])
        let stock: [StockedWood: Int] = [.body(.mahogany): 2, .fretboard(.blackLimba): 1, .fretboard(.rosewood): 5]
        #expect(WoodNeed.missing(needs, stock: stock) == [])
        // Two lines cannot each take the last mahogany blank.
        var short = stock
        short[.body(.mahogany)] = 1
        #expect(WoodNeed.missing(needs, stock: short) == ["Mahogany body blanks"])
        // A wood the stock does not list has none.
        #expect(WoodNeed.missing(needs, stock: [:]).count == 3)
    }

    @Test("each line is unavailable when one of its woods is short of the whole order, naming those woods body first")
    func availabilityPerLine() {
        let lines = [CartLine(guitar: Self.limbaNeck, quantity: 1), CartLine(guitar: Self.ashRosewood, quantity: 1)]
        let stock: [StockedWood: Int] = [
            .body(.mahogany): 0, .fretboard(.blackLimba): 0, .body(.swampAsh): 3, .fretboard(.rosewood): 3,
        ]
        #expect(
            WoodNeed.availability(of: lines, stock: stock) == [
                .unavailable(missing: ["Mahogany body blanks", "Black Limba fretboards"]), .available,
            ])
        var plenty = stock
        plenty[.body(.mahogany)] = 1
        plenty[.fretboard(.blackLimba)] = 1
        #expect(WoodNeed.availability(of: lines, stock: plenty) == [.available, .available])
    }
}
