import Foundation
import Testing

@testable import LuthierDomain

/// The rules of a stock adjustment, and the names stock lines go by in forms and on the command line.
@Suite struct StockLevelTests {
    static let koa = StockLevel(wood: .body(.koa), inStock: 6, reserved: 1, taken: 2)

    @Test func aChangeWithinBoundsThatKeepsTheStockAtOrAboveZeroIsAllowed() {
        for change in [1, -6, 1_000, -1] { #expect(Self.koa.refusal(of: change) == nil, "\(change)") }
    }

    @Test func zeroTooLargeBelowZeroOrAboveTheMostAreRefused() {
        #expect(Self.koa.refusal(of: 0) == .changeOutOfRange(0))
        #expect(Self.koa.refusal(of: 1_001) == .changeOutOfRange(1_001))
        #expect(Self.koa.refusal(of: -1_001) == .changeOutOfRange(-1_001))
        #expect(Self.koa.refusal(of: -7) == .belowZero(.body(.koa), inStock: 6, change: -7))
        let full = StockLevel(wood: .body(.koa), inStock: StockLevel.mostInStock, reserved: 0, taken: 0)
        #expect(full.refusal(of: 1) == .aboveMost(.body(.koa), inStock: StockLevel.mostInStock, change: 1))
        #expect(
            StockRefusal.changeOutOfRange(0).description
                == "change: 0 is not an adjustment; give a whole number from -1000 to 1000, not 0.")
    }

    @Test func everyStockLineHasAnIDThatNamesItBack() throws {
        for wood in StockedWood.allCases {
            #expect(StockedWood(id: wood.id) == wood)
            let coded = try JSONDecoder().decode(StockedWood.self, from: JSONEncoder().encode(wood))
            #expect(coded == wood)
        }
        #expect(StockedWood.body(.blackLimba).id == "body/blackLimba")
        for wrong in ["", "body", "body/", "neck/koa", "body/Koa", "fretboard/mahogany", "body/koa/x"] {
            #expect(StockedWood(id: wrong) == nil, "\(wrong)")
        }
    }

    @Test func levelsCountOpenOrdersAsReservedFinishedAsTakenAndCancelledAsNeither() {
        let guitars = [
            StockLevel.GuitarsAtStage(status: .woodSelection, body: .koa, fretboard: .ebony, guitars: 2),
            StockLevel.GuitarsAtStage(status: .setup, body: .koa, fretboard: .rosewood, guitars: 1),
            StockLevel.GuitarsAtStage(status: .shipped, body: .koa, fretboard: .ebony, guitars: 3),
            StockLevel.GuitarsAtStage(status: .collected, body: .mahogany, fretboard: .ebony, guitars: 1),
            StockLevel.GuitarsAtStage(status: .cancelled, body: .koa, fretboard: .ebony, guitars: 5),
        ]
        let levels = StockLevel.levels(inStock: [.body(.koa): 4], guitars: guitars)
        #expect(levels.map(\.wood) == StockedWood.allCases)
        let koa = levels.first { $0.wood == .body(.koa) }
        #expect(koa == StockLevel(wood: .body(.koa), inStock: 4, reserved: 3, taken: 3))
        #expect(
            levels.first { $0.wood == .fretboard(.ebony) }
                == StockLevel(wood: .fretboard(.ebony), inStock: 0, reserved: 2, taken: 4))
        #expect(
            levels.first { $0.wood == .body(.blackLimba) }
                == StockLevel(wood: .body(.blackLimba), inStock: 0, reserved: 0, taken: 0))
    }
}
