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
