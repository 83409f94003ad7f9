import LuthierDomain
import Testing

@testable import LuthierFeatures

/// What the guided build's page shows, from its state.
@Suite("GuideOutput")
struct GuideOutputTests {
    @Test func aNewGuideAsksForTheShapeWithNextNotYetEnabled() {
        let output = GuideOutput(state: GuideState())
        #expect(output.step == "shape")
        #expect(output.heading == "Step 1 of 5: Shape")
        #expect(output.field == "shape")
        #expect(output.options.map(\.label) == ["Casual", "Chunky", "Long V (+$75)", "Sharp V (+$100)"])
        #expect(output.options.allSatisfy { !$0.isSelected && !$0.note.isEmpty })
        #expect(Set(output.options.map(\.note)).count == 4, "each option says what it changes")
        #expect(!output.nextEnabled)
        #expect(!output.backEnabled)
        #expect(output.progress.map(\.status) == ["current step", "to come", "to come", "to come", "to come"])
        #expect(output.summary == "Nothing chosen yet")
        #expect(output.price == "$2,000")
        #expect(!output.isReview)
    }

    @Test func anAnsweredStepEnablesNextAndTheGuitarGrows() {
        let output = GuideOutput(state: GuideState(step: .color, shape: .longV, color: .sky))
        #expect(output.heading == "Step 2 of 5: Color")
        #expect(output.options.filter(\.isSelected).map(\.value) == ["sky"])
        #expect(output.options.first?.inputID == "guide-color-natural")
        #expect(output.nextEnabled)
        #expect(output.backEnabled)
        #expect(output.progress.map(\.status) == ["answered", "current step", "to come", "to come", "to come"])
        #expect(output.summary == "So far: Long V, Sky; body and fretboard to come")
        #expect(output.price == "$2,225")
        #expect(output.guitar == Guitar(shape: .longV, color: .sky))
        #expect(output.artwork == GuitarArtwork(guitar: Guitar(shape: .longV, color: .sky)))
    }

    @Test func theReviewListsEveryAnswerAndAsksNothing() {
        let state = GuideState(step: .review, shape: .chunky, color: .earth, body: .koa, fretboard: .ebony)
        let output = GuideOutput(state: state)
        #expect(output.isReview)
        #expect(output.field == nil)
        #expect(output.options.isEmpty)
        #expect(output.answers.map(\.answer) == ["Chunky", "Earth (+$50)", "Koa (+$100)", "Ebony (+$100)"])
        #expect(!output.nextEnabled)
        #expect(output.summary == "Earth Chunky with Koa body and Ebony fretboard")
        #expect(output.progress.last?.isCurrent == true)
    }
}
