import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct PickerTests {
    @Test func everyGuitarsPickersAreTheFourListsWithItsChoicesSelected() {
        for guitar in Guitar.allConfigurations {
            let pickers = Picker.all(for: guitar)
            #expect(
                pickers == [
                    Picker(Shape.self, selected: guitar.shape),
                    Picker(Color.self, selected: guitar.color),
                    Picker(BodyWood.self, selected: guitar.body),
                    Picker(FretboardWood.self, selected: guitar.fretboard),
                ])
            #expect(pickers.map { $0.options.filter(\.isSelected).count } == [1, 1, 1, 1])
        }
    }

    @Test func theWoodsOutOfStockAreMarkedAndStillChoosable() {
        let soldOut: Set<StockedWood> = [.body(.blackLimba), .fretboard(.ebony)]
        let guitar = Guitar(body: .blackLimba)
        let pickers = Picker.all(for: guitar, soldOut: soldOut)
        let marked = pickers.flatMap { picker in
            picker.options.filter(\.isSoldOut).map { "\(picker.field)=\($0.value)" }
        }
        #expect(marked == ["body=blackLimba", "fretboard=ebony"])
        // The chosen wood stays chosen: the checkout is where it is refused.
        #expect(pickers[2].options.first { $0.value == "blackLimba" }?.isSelected == true)
        #expect(Picker.all(for: guitar).allSatisfy { $0.options.allSatisfy { !$0.isSoldOut } })
        // A body and a fretboard of one wood are two stock lines.
        let limbaFretboards = Picker.all(for: guitar, soldOut: [.fretboard(.blackLimba)])
        #expect(limbaFretboards[2].options.allSatisfy { !$0.isSoldOut })
        #expect(limbaFretboards[3].options.filter(\.isSoldOut).map(\.value) == ["blackLimba"])
    }

    @Test func aStockChangeMarksThePickersAndNothingElse() {
        let state = BuildState(guitar: .standard)
        let next = BuildState.reduce(state, .stockChanged(soldOut: [.body(.koa)]))
        #expect(next.soldOut == [.body(.koa)])
        #expect(next.guitar == state.guitar && next.checkout == state.checkout)
        let output = BuildOutput(state: next)
        #expect(output.picker(for: .body)?.options.first { $0.value == "koa" }?.isSoldOut == true)
        #expect(output.artwork == BuildOutput(state: state).artwork)
    }

    @Test func aStateRecordedBeforeTheStockWasKnownReadsWithNothingMarked() throws {
        let recorded = try JSONEncoder().encode(BuildState(guitar: .standard))
        var object = try #require(try JSONSerialization.jsonObject(with: recorded) as? [String: Any])
        object.removeValue(forKey: "soldOut")
        let old = try JSONSerialization.data(withJSONObject: object)
        #expect(try JSONDecoder().decode(BuildState.self, from: old) == BuildState(guitar: .standard))
    }

    @Test func twoOutputsOfTheSameGuitarShareTheirPickersStorage() {
        let guitar = Guitar(shape: .longV, color: .sky)
        let first = BuildOutput(state: BuildState(guitar: guitar))
        let second = BuildOutput(state: BuildState(guitar: guitar))
        let firstStorage = first.pickers.withUnsafeBufferPointer { $0.baseAddress }
        let secondStorage = second.pickers.withUnsafeBufferPointer { $0.baseAddress }
        #expect(firstStorage == secondStorage)
        let otherStorage = BuildOutput(state: BuildState(guitar: .standard)).pickers.withUnsafeBufferPointer {
            $0.baseAddress
        }
        #expect(otherStorage != firstStorage)
    }
}
