import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct BuildStateTests {
    @Test func reduceAppliesEveryChangeToEveryConfiguration() {
        for guitar in Guitar.allConfigurations {
            let state = BuildState(guitar: guitar)
            #expect(BuildState.reduce(state, .startOver).guitar == .standard)
            #expect(BuildState.reduce(state, .change(GuitarChange())) == state)
            let changed = BuildState.reduce(state, .change(GuitarChange(shape: .sharpV, fretboard: .blackLimba)))
            #expect(changed.guitar.shape == .sharpV)
            #expect(changed.guitar.fretboard == .blackLimba)
            #expect(changed.guitar.color == guitar.color)
            #expect(changed.guitar.body == guitar.body)
        }
    }

    @Test func foldingAnActionHistoryIsTheScanOfReduce() {
        let actions: [BuildAction] = [
            .change(GuitarChange(shape: .longV)), .change(GuitarChange(color: .sky)), .startOver,
            .change(GuitarChange(body: .koa, fretboard: .ebony)),
        ]
        let states = actions.reduce(into: [BuildState()]) { states, action in
            states.append(BuildState.reduce(states[states.count - 1], action))
        }
        #expect(states.map(\.guitar.price.roundedMajorUnits) == [2000, 2075, 2225, 2000, 2200])
    }

    /// The guide lives in the builder's state: nil until the customer's first step, its steps
    /// leave the builder's guitar alone, and the review's finish hands the guide's guitar over.
    @Test func theGuideBeginsOnItsFirstInputAndItsFinishHandsTheGuitarToTheBuilder() {
        let builder = BuildState(guitar: Guitar(shape: .chunky))
        #expect(builder.guide == nil)
        var state = BuildState.reduce(builder, .guide(.answer(GuitarChange(shape: .sharpV))))
        #expect(state.guide == GuideState(step: .shape, shape: .sharpV))
        #expect(state.guitar == builder.guitar, "a step of the guide does not change the builder")
        // A finish before the review changes nothing.
        #expect(BuildState.reduce(state, .guide(.finish)) == state)
        for answer in [GuitarChange(color: .sky), GuitarChange(body: .koa), GuitarChange(fretboard: .ebony)] {
            state = BuildState.reduce(state, .guide(.next))
            state = BuildState.reduce(state, .guide(.answer(answer)))
        }
        state = BuildState.reduce(state, .guide(.next))
        #expect(state.guide?.step == .review)
        #expect(state.guitar == builder.guitar)
        let finished = BuildState.reduce(state, .guide(.finish))
        #expect(finished.guitar == Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony))
        #expect(finished.guide == state.guide, "the guide stays at its review")
    }

    /// A state recorded before the guide existed (a trace from an earlier version) reads as one
    /// nobody was guided in.
    @Test func aStateRecordedBeforeTheGuideReadsWithoutOne() throws {
        let old =
            #"{"guitar":{"shape":"longV","color":"sky","body":"koa","fretboard":"ebony"},"checkoutPhase":{"idle":{}}}"#
        let state = try JSONDecoder().decode(BuildState.self, from: Data(old.utf8))
        #expect(state.guide == nil)
        #expect(state.guitar.shape == .longV)
        let guided = BuildState(guide: GuideState(step: .color, shape: .casual))
        #expect(try JSONDecoder().decode(BuildState.self, from: JSONEncoder().encode(guided)) == guided)
    }
}
