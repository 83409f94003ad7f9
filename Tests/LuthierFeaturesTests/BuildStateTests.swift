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
}
