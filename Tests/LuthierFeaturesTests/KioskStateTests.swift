import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

/// The kiosk's fold alone: what a build, a tick and the floor do to the state, and the attract loop.
@Suite struct KioskStateTests {
    typealias Fixture = WorkshopFloorFixture
    let base = WorkshopFloorFixture.base
    let quiet = KioskFeature.quietTicks
    let attract = KioskState.attractGuitars

    func fresh() -> KioskState {
        KioskState(floor: WorkshopFloorOutput(updatedAt: base), now: base)
    }

    func tick(_ seconds: Double = 5, counters: KioskCounters = KioskCounters()) -> KioskState.Event {
        .tick(now: base.addingTimeInterval(seconds), counters: counters)
    }

    /// `state` after `count` ticks, and the showcase after each of them.
    func ticking(_ state: KioskState, _ count: Int) -> (state: KioskState, showcases: [KioskState.Showcase]) {
        var state = state
        var showcases: [KioskState.Showcase] = []
        for index in 0..<count {
            state = KioskState.reduce(state, tick(Double(index + 1) * 5))
            showcases.append(state.showcase)
        }
        return (state, showcases)
    }

    @Test func theConstantsTheKioskIsBuiltOn() {
        #expect(KioskFeature.quietTicks == 12)
        #expect(KioskFeature.tickInterval == .seconds(5))
        #expect(KioskFeature.throttleInterval == .milliseconds(500))
        // A quiet minute: twelve ticks of five seconds.
        #expect(KioskFeature.tickInterval * KioskFeature.quietTicks == .seconds(60))
        // Every attract guitar is different, and they cover every shape, colour and body wood.
        #expect(Set(attract).count == attract.count)
        #expect(Set(attract.map(\.shape)) == Set(Shape.allCases))
        #expect(Set(attract.map(\.color)) == Set(Color.allCases))
        #expect(Set(attract.map(\.body)) == Set(BodyWood.allCases))
        #expect(Set(attract.map(\.fretboard)) == Set(FretboardWood.allCases))
    }

    @Test func aFreshKioskIsQuietAndShowsTheFirstAttractGuitar() {
        let state = fresh()
        #expect(state.showcase == .attract(0))
        #expect(state.quietTicks == quiet)
        #expect(state.counters == KioskCounters())
        #expect(state.now == base)
        #expect(state.floor == WorkshopFloorOutput(updatedAt: base))
    }

    @Test func aBuildShowsTheGuitarAndResetsTheQuiet() {
        let guitar = Guitar(shape: .longV, color: .earth)
        let built = KioskState.reduce(fresh(), .built(guitar))
        #expect(built.showcase == .building(guitar))
        #expect(built.quietTicks == 0)
        // Nothing else moves: not the time, the counters or the floor.
        #expect(built.now == base)
        #expect(built.counters == KioskCounters())
        #expect(built.floor == fresh().floor)

        // Halfway through a quiet spell, another build starts it again.
        let halfway = ticking(built, 7).state
        #expect(halfway.quietTicks == 7)
        let other = Guitar(shape: .sharpV)
        let again = KioskState.reduce(halfway, .built(other))
        #expect(again.showcase == .building(other))
        #expect(again.quietTicks == 0)
    }

    @Test func ticksCountUpAndCarryTheTimeAndTheCounters() {
        var state = KioskState.reduce(fresh(), .built(.standard))
        for index in 1..<quiet {
            let counters = KioskCounters(guitarsInCarts: index * 2, liveSessions: index)
            state = KioskState.reduce(state, tick(Double(index) * 5, counters: counters))
            #expect(state.quietTicks == index)
            #expect(state.now == base.addingTimeInterval(Double(index) * 5))
            #expect(state.counters == counters)
            #expect(state.showcase == .building(.standard))
        }
    }

    @Test func theAttractLoopStartsAfterExactlyQuietTicksTicks() {
        let guitar = Guitar(body: .koa)
        let built = KioskState.reduce(fresh(), .built(guitar))
        let (state, showcases) = ticking(built, quiet)
        // Eleven ticks keep the guitar on show; the twelfth starts the loop at its first guitar.
        #expect(Array(showcases.prefix(quiet - 1)) == Array(repeating: .building(guitar), count: quiet - 1))
        #expect(showcases.last == .attract(0))
        #expect(state.quietTicks == quiet)
    }

    @Test func theAttractLoopShowsOneConfigurationPerTickAndCycles() {
        let built = KioskState.reduce(fresh(), .built(.standard))
        let started = ticking(built, quiet).state
        #expect(started.showcase == .attract(0))
        let (state, showcases) = ticking(started, attract.count * 2)
        let expected = (1...(attract.count * 2)).map { KioskState.Showcase.attract($0 % attract.count) }
        #expect(showcases == expected)
        // The quiet count saturates: it does not grow without bound on a screen left for days.
        #expect(state.quietTicks == quiet)
        // Every configuration of the loop was shown.
        let shown = Set(showcases.map { KioskOutput(state: stateShowing($0)).showcase.description })
        #expect(shown == Set(attract.map(\.description)))
    }

    @Test func aFreshKioskCyclesAtOnce() {
        // Nobody has built since the server started: the loop is already running.
        let (_, showcases) = ticking(fresh(), 3)
        #expect(showcases == [.attract(1), .attract(2), .attract(3)])
    }

    @Test func aBuildStopsTheAttractLoopTheMomentItHappens() {
        let looping = ticking(fresh(), 5).state
        #expect(looping.showcase == .attract(5))
        let guitar = Guitar(shape: .chunky, color: .dusk)
        let built = KioskState.reduce(looping, .built(guitar))
        #expect(built.showcase == .building(guitar))
        #expect(built.quietTicks == 0)
        // The next tick keeps the guitar: the loop waits for a whole quiet spell again.
        let (after, showcases) = ticking(built, quiet - 1)
        #expect(showcases.allSatisfy { $0 == .building(guitar) })
        #expect(KioskState.reduce(after, tick(999)).showcase == .attract(0))
    }

    @Test func theFloorReplacesTheFloorAndNothingElse() {
        let orders = (1...3).map { Fixture.order($0) }
        let floor = WorkshopFloorOutput(
            recentOrders: orders.reversed(), inProgress: OrderList(orders), guitarsOrderedToday: 3, updatedAt: base)
        let built = ticking(KioskState.reduce(fresh(), .built(.standard)), 4).state
        let next = KioskState.reduce(built, .floor(floor))
        #expect(next.floor == floor)
        #expect(next.showcase == built.showcase)
        #expect(next.quietTicks == built.quietTicks)
        #expect(next.now == built.now)
        #expect(next.counters == built.counters)
        // The floor is not a builder: it neither resets the quiet nor counts as a tick.
        let emptier = KioskState.reduce(next, .floor(WorkshopFloorOutput(updatedAt: base)))
        #expect(emptier.floor.recentOrders.isEmpty)
        #expect(emptier.quietTicks == 4)
    }

    /// A state whose showcase is `showcase`, for reading what it shows.
    private func stateShowing(_ showcase: KioskState.Showcase) -> KioskState {
        var state = fresh()
        state.showcase = showcase
        return state
    }
}
