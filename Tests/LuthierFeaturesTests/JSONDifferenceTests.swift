import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct JSONDifferenceTests {
    struct Sample: Encodable {
        var guitar: Guitar
        var lines: [Int]
        var note: String?
    }

    @Test func onlyTheFieldsThatChangedAreListedWithTheirValuesBeforeAndAfter() {
        var guitar = Guitar.standard
        guitar.color = .sky
        let changes = JSONDifference.changes(
            from: Sample(guitar: .standard, lines: [1, 2], note: nil),
            to: Sample(guitar: guitar, lines: [1, 3, 4], note: "hi"))
        #expect(
            changes.map { "\($0.path): \($0.before) → \($0.after)" } == [
                ".guitar.color: \"\(Guitar.standard.color.rawValue)\" → \"sky\"",
                ".lines[1]: 2 → 3",
                ".lines.count: 2 → 3",
                ".note: absent → \"hi\"",
            ])
    }

    @Test func equalValuesHaveNoChangesAndTheListIsBounded() {
        let sample = Sample(guitar: .standard, lines: Array(0..<50), note: nil)
        #expect(JSONDifference.changes(from: sample, to: sample).isEmpty)
        let shifted = Sample(guitar: .standard, lines: Array(1..<51), note: nil)
        #expect(JSONDifference.changes(from: sample, to: shifted, limit: 5).count == 5)
    }
}
