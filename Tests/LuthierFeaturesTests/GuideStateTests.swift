import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

/// The guided build's state machine, exhaustively: every step with every combination of answers
/// (5 × 5⁴ states), and every input at each of them, against the rules the issue names.
@Suite("GuideState")
struct GuideStateTests {
    /// Every state the machine can be in: each step, each field unanswered or any of its options.
    static let allStates: [GuideState] = FlowStep.allCases.flatMap { step in
        ([nil] + Shape.allCases.map(Optional.some)).flatMap { shape in
            ([nil] + Color.allCases.map(Optional.some)).flatMap { color in
                ([nil] + BodyWood.allCases.map(Optional.some)).flatMap { body in
                    ([nil] + FretboardWood.allCases.map(Optional.some)).map { fretboard in
                        GuideState(step: step, shape: shape, color: color, body: body, fretboard: fretboard)
                    }
                }
            }
        }
    }

    /// Every input: an answer of each option of each field, answers of two fields at once and of
    /// none, and Next, Back, Restart and Finish.
    static let allActions: [GuideAction] =
        Shape.allCases.map { .answer(GuitarChange(shape: $0)) }
        + Color.allCases.map { .answer(GuitarChange(color: $0)) }
        + BodyWood.allCases.map { .answer(GuitarChange(body: $0)) }
        + FretboardWood.allCases.map { .answer(GuitarChange(fretboard: $0)) }
        + [
            .answer(GuitarChange()), .answer(GuitarChange(shape: .longV, color: .sky)),
            .answer(GuitarChange(body: .koa, fretboard: .ebony)), .next, .back, .restart, .finish,
        ]

    @Test func everyInputAtEveryStateFollowsTheRules() {
        #expect(Self.allStates.count == 5 * 5 * 5 * 5 * 5)
        for state in Self.allStates {
            for action in Self.allActions {
                let next = GuideState.reduce(state, action)
                let refusal = state.refusal(action)
                switch action {
                case .answer(let change):
                    let fields = GuideState.fields(of: change)
                    if let asked = state.step.field, fields == [asked] {
                        #expect(refusal == nil)
                        #expect(next.step == state.step, "an answer never moves the step")
                        var expected = state
                        expected.shape = change.shape ?? state.shape
                        expected.color = change.color ?? state.color
                        expected.body = change.body ?? state.body
                        expected.fretboard = change.fretboard ?? state.fretboard
                        #expect(next == expected, "\(state) \(action)")
                    } else {
                        #expect(refusal != nil, "\(state) \(action)")
                    }
                case .next:
                    if state.step != .review && state.isAnswered(state.step) {
                        #expect(refusal == nil)
                        #expect(next.step.number == state.step.number + 1)
                        #expect(Self.answers(next) == Self.answers(state))
                    } else {
                        #expect(refusal == (state.step == .review ? .atTheEnd : .unanswered(state.step)))
                    }
                case .back:
                    if state.step != .shape {
                        #expect(refusal == nil)
                        #expect(next.step.number == state.step.number - 1)
                        #expect(Self.answers(next) == Self.answers(state), "Back never loses an answer")
                    } else {
                        #expect(refusal == .atTheStart)
                    }
                case .restart:
                    #expect(refusal == nil)
                    #expect(next == GuideState())
                case .finish:
                    #expect(refusal == (state.step == .review ? nil : .notAtReview(state.step)))
                    #expect(next == state, "finishing hands the guitar over and leaves the guide at the review")
                }
                if refusal != nil {
                    #expect(next == state, "a refused input changes nothing: \(state) \(action)")
                    #expect(!(refusal?.message.isEmpty ?? true))
                }
            }
        }
    }

    /// From a new guide, no sequence of inputs reaches the review with a question unanswered: Next
    /// cannot skip one, and Back keeps them.
    @Test func theReviewIsReachedOnlyWithEveryQuestionAnswered() {
        var seen: Set<GuideState> = [GuideState()]
        var frontier = [GuideState()]
        while let state = frontier.popLast() {
            for action in Self.allActions {
                let next = GuideState.reduce(state, action)
                if seen.insert(next).inserted { frontier.append(next) }
            }
        }
        let atReview = seen.filter { $0.step == .review }
        #expect(!atReview.isEmpty)
        #expect(atReview.allSatisfy { state in FlowStep.allCases.allSatisfy(state.isAnswered) })
        // Every guitar can be reached and finished.
        #expect(Set(atReview.map(\.guitar)).count == Guitar.allConfigurations.count)
    }

    /// A whole walk, with Back and Next at every point: Next is refused until the step is answered,
    /// Back keeps every answer, and the guitar grows with the answers.
    @Test func aWalkThroughTheGuideWithBackAndNextAtEveryStep() {
        let answers: [GuitarChange] = [
            GuitarChange(shape: .sharpV), GuitarChange(color: .dusk), GuitarChange(body: .swampAsh),
            GuitarChange(fretboard: .birdseyeMaple),
        ]
        var state = GuideState()
        #expect(state.guitar == .standard)
        for (index, answer) in answers.enumerated() {
            #expect(state.refusal(.next) == .unanswered(state.step))
            state = GuideState.reduce(state, .answer(answer))
            let step = state.step
            state = GuideState.reduce(state, .next)
            #expect(state.step == step.next)
            // Back and Next again: the same state, nothing lost.
            let there = state
            state = GuideState.reduce(state, .back)
            #expect(state.step == step)
            #expect(state.refusal(.next) == nil, "an answered step stays answered after Back")
            state = GuideState.reduce(state, .next)
            #expect(state == there)
            #expect(state.step.number == index + 2)
        }
        #expect(state.step == .review)
        #expect(state.guitar == Guitar(shape: .sharpV, color: .dusk, body: .swampAsh, fretboard: .birdseyeMaple))
        // All the way back to the first step, every answer kept.
        for _ in 1...4 { state = GuideState.reduce(state, .back) }
        #expect(state.step == .shape)
        #expect(state.refusal(.back) == .atTheStart)
        #expect(state.guitar == Guitar(shape: .sharpV, color: .dusk, body: .swampAsh, fretboard: .birdseyeMaple))
    }

    @Test func refusalsNameTheFieldAndWhatIsAllowed() {
        let atColor = GuideState(step: .color, shape: .longV)
        #expect(
            atColor.refusal(.answer(GuitarChange(shape: .casual)))?.message
                == "The guide is at the Color step; it takes color (natural, sky, dusk, earth), not shape.")
        #expect(
            atColor.refusal(.next)?.message
                == "Choose a color first: Next moves on once the Color step is answered.")
        #expect(
            GuideState(step: .review).refusal(.answer(GuitarChange(body: .koa)))?.message
                == "The review asks nothing; go Back to change an answer, or finish the guide.")
        #expect(
            atColor.refusal(.finish)?.message
                == "The guide is at the Color step; it can be finished from the review, after the Fretboard step.")
    }

    @Test func aGuideSurvivesBeingSavedAndRead() throws {
        let state = GuideState(step: .body, shape: .chunky, color: .earth)
        let data = try JSONEncoder().encode(state)
        #expect(try JSONDecoder().decode(GuideState.self, from: data) == state)
    }

    static func answers(_ state: GuideState) -> [String?] {
        [state.shape?.rawValue, state.color?.rawValue, state.body?.rawValue, state.fretboard?.rawValue]
    }
}
