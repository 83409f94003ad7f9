import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierFeatures

/// The workshop floor on a manual clock against the fake workshop: `now` is always the clock's
/// time after `base`, so the wall clock and the timer agree. Each pass of the stage timer comes
/// back as an action the test receives, in order, so a pass that came early (or an extra one)
/// is received instead of the expected one and fails the test; nothing polls.
@Suite struct WorkshopFloorFeatureTests {
    typealias Fixture = WorkshopFloorFixture

    struct Harness {
        let clock = ManualClock()
        let workshop = FakeWorkshop()
        let base = WorkshopFloorFixture.base

        var environment: LuthierEnvironment {
            let clock = clock
            let base = base
            return LuthierEnvironment.test(
                clock: clock, now: { base.addingTimeInterval(Self.seconds(clock.now.offset)) },
                workshop: workshop.client)
        }

        static func seconds(_ duration: Duration) -> TimeInterval {
            let (seconds, attoseconds) = duration.components
            return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        }

        /// A floor and the test's hold on its store.
        func floor(pace: WorkshopPace = .demo) -> (TestStore<WorkshopFloorFeature>, WorkshopFloor) {
            var made: WorkshopFloor?
            let store = TestStore<WorkshopFloorFeature>(making: { feedback in
                let floor = WorkshopFloor(environment: environment, pace: pace, feedback: feedback)
                made = floor
                return floor.store
            })
            return (store, made ?? WorkshopFloor(environment: environment, pace: pace))
        }

        /// A floor started on an empty store: loaded, its first pass made, asleep.
        func startedEmpty(pace: WorkshopPace = .demo) async -> (TestStore<WorkshopFloorFeature>, WorkshopFloor) {
            var (store, floor) = self.floor(pace: pace)
            store.send(.start)
            await store.receive(.loaded(recentOrders: [], inProgress: [], guitarsOrderedToday: 0, at: base))
            await store.receive(.advanced([], at: base))
            return (store, floor)
        }
    }

    /// `order` moved through `stages` (after its first), a pace of `seconds` each.
    static func moved(_ order: Order, through stages: some Sequence<OrderStatus>, seconds: Double = 10) -> Order {
        var order = order
        for stage in stages {
            order = Fixture.moved(order, to: stage, at: order.stageStartedAt.addingTimeInterval(seconds))
        }
        return order
    }

    // MARK: - Loading

    @Test func startLoadsTheLatestOrdersTheBoardAndTodaysGuitars() async {
        let harness = Harness()
        let base = harness.base
        let yesterday = Fixture.order(1, minutes: -24 * 60, quantity: 2, status: .shipped)
        let pickedUp = Fixture.order(2, minutes: -2, quantity: 1, status: .readyForPickup)
        let inProgress = Fixture.order(3, minutes: -1, quantity: 3, status: .finishing, stageStartedAt: base)
        for order in [yesterday, pickedUp, inProgress] { harness.workshop.store(order) }
        var (store, floor) = harness.floor()
        #expect(floor.currentOutput == WorkshopFloorOutput(updatedAt: base))

        store.send(.start)
        await store.receive(
            .loaded(
                recentOrders: [inProgress, pickedUp, yesterday], inProgress: [inProgress], guitarsOrderedToday: 4,
                at: base),
            checking: { _ in })
        #expect(
            floor.currentOutput
                == WorkshopFloorOutput(
                    recentOrders: [inProgress, pickedUp, yesterday], inProgress: [inProgress], guitarsOrderedToday: 4,
                    updatedAt: base))
        await store.receive(.advanced([], at: base))
        #expect(harness.workshop.guitarsAskedSince == [WorkshopFloorState.startOfUTCDay(containing: base)])
        #expect(harness.workshop.floorCounts.recentOrders == 1)
        #expect(harness.workshop.floorCounts.ordersInProgress == 1)
        await store.finish()
    }

    // MARK: - Other instances

    @Test func ordersPlacedMovedAndChangedByAnotherInstanceShowHere() async {
        let harness = Harness()
        let base = harness.base
        var (store, floor) = await harness.startedEmpty()
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)

        harness.workshop.changeElsewhere(.placed(number: order.number))
        await store.receive(.placed(order, at: base), checking: { _ in })
        // The new order wakes the timer, which finds nothing due yet.
        await store.receive(.advanced([], at: base))
        #expect(floor.currentOutput.inProgress == [order])
        #expect(floor.currentOutput.guitarsOrderedToday == order.guitarCount)

        let shaped = Fixture.moved(order, to: .bodyShaping, at: base)
        harness.workshop.store(shaped)
        harness.workshop.changeElsewhere(.advanced(number: order.number))
        await store.receive(.advanced([shaped], at: base), checking: { _ in })
        #expect(floor.currentOutput.inProgress == [shaped])

        // Reconnected: the floor is read again, since changes in between were not told.
        harness.workshop.changeElsewhere(.listening)
        await store.receive(
            .loaded(recentOrders: [shaped], inProgress: [shaped], guitarsOrderedToday: order.guitarCount, at: base),
            checking: { _ in })
        // An order that cannot be read is skipped.
        harness.workshop.changeElsewhere(.changed(number: "LU-NOPE22"))
        let cancelled = Fixture.moved(shaped, to: .cancelled, at: base)
        harness.workshop.store(cancelled)
        harness.workshop.changeElsewhere(.changed(number: order.number))
        await store.receive(.changed(cancelled, at: base), checking: { _ in })
        await store.receive(.advanced([], at: base))
        #expect(floor.currentOutput.inProgress.isEmpty)
        await store.finish()
    }

    /// Leadership a test hands over: until it does, the floor waits (and says so once).
    final class LeadershipGate: Sendable {
        let asked: AsyncStream<Void>
        private let ask: AsyncStream<Void>.Continuation
        private let grants: AsyncStream<Void>
        private let grant: AsyncStream<Void>.Continuation
        private let leading = Mutex(false)

        init() {
            (asked, ask) = AsyncStream.makeStream()
            (grants, grant) = AsyncStream.makeStream()
        }

        var leadership: FloorLeadership {
            FloorLeadership {
                guard !self.leading.withLock({ $0 }) else { return Self.term }
                self.ask.yield()
                var iterator = self.grants.makeAsyncIterator()
                _ = await iterator.next()
                self.leading.withLock { $0 = true }
                return Self.term
            }
        }

        /// The term the gate grants: each pass is expected to carry it to the workshop.
        static let term = FloorTerm(7)

        func lead() { grant.yield() }
    }

    @Test func aFloorThatDoesNotLeadMakesNoPassUntilItLeadsButShowsTheLeadersMoves() async {
        let harness = Harness()
        let base = harness.base
        let gate = LeadershipGate()
        var store = TestStore<WorkshopFloorFeature>(making: { feedback in
            WorkshopFloor(
                environment: harness.environment, pace: .demo, leadership: gate.leadership, feedback: feedback
            )
            .store
        })
        store.send(.start)
        await store.receive(.loaded(recentOrders: [], inProgress: [], guitarsOrderedToday: 0, at: base))
        var asked = gate.asked.makeAsyncIterator()
        _ = await asked.next()
        // Waiting for the lead: no pass, but another instance's order still shows.
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        harness.workshop.changeElsewhere(.placed(number: order.number))
        await store.receive(.placed(order, at: base), checking: { _ in })
        #expect(harness.workshop.floorCounts.advanceStages == 0)

        gate.lead()
        await store.receive(.advanced([], at: base))
        // The order's wake-up, kept while the floor waited, makes a second pass at once.
        await store.receive(.advanced([], at: base))
        #expect(harness.workshop.floorCounts.advanceStages == 2)
        // Each pass carried the term it was granted under, for the store to fence.
        #expect(harness.workshop.passTerms == [LeadershipGate.term, LeadershipGate.term])
        await store.finish()
    }

    @Test func aPassRefusedAsksForTheLeadAgainAndRetriesInTheTermItIsGivenThen() async {
        let harness = Harness()
        let base = harness.base
        let term = Mutex(FloorTerm(1))
        var store = TestStore<WorkshopFloorFeature>(making: { feedback in
            WorkshopFloor(
                environment: harness.environment, pace: .demo,
                leadership: FloorLeadership { term.withLock { $0 } }, feedback: feedback
            )
            .store
        })
        store.send(.start)
        await store.receive(.loaded(recentOrders: [], inProgress: [], guitarsOrderedToday: 0, at: base))
        await store.receive(.advanced([], at: base))
        // The store refuses the next pass, as it refuses one whose term has ended; meanwhile the
        // lead passes to a new term.
        harness.workshop.failFloorCalls(1)
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        store.send(.placed(order, at: base)) {
            $0.recentOrders = [order]
            $0.inProgress = [order]
            $0.guitarsOrderedToday = 1
        }
        await store.receive(.retrying(after: .seconds(1)))
        term.withLock { $0 = FloorTerm(2) }
        await harness.clock.advance(by: .seconds(1))
        await store.receive(.advanced([], at: base + 1))
        #expect(harness.workshop.passTerms == [FloorTerm(1), FloorTerm(1), FloorTerm(2)])
        await store.finish()
    }

    // MARK: - The stages, on time

    @Test(arguments: [ShippingMethod.express, .pickup])
    func aPlacedOrderGoesThroughEveryStageOnePerPace(shipping: ShippingMethod) async {
        let harness = Harness()
        let base = harness.base
        var (store, floor) = await harness.startedEmpty()

        let order = Fixture.order(1, minutes: 0, shipping: shipping)
        harness.workshop.store(order)
        store.send(.placed(order, at: base)) {
            $0.recentOrders = [order]
            $0.inProgress = [order]
            $0.guitarsOrderedToday = 1
        }
        // It wakes the timer, which finds nothing due yet.
        await store.receive(.advanced([], at: base))

        let stages = OrderStatus.stages(for: shipping)
        for (paces, stage) in stages.enumerated().dropFirst() {
            // A millisecond before the pace is over nothing moves (a pass then would be received
            // here instead); when it is, the order moves exactly one stage.
            await harness.clock.advance(by: .milliseconds(9_999))
            await harness.clock.advance(by: .milliseconds(1))
            let at = base.addingTimeInterval(Double(paces) * 10)
            let movedOrder = Self.moved(order, through: stages[1...paces])
            await store.receive(
                .advanced([movedOrder], at: at),
                checking: { state in
                    #expect(state.recentOrders.first?.status == stage)
                    #expect(state.recentOrders.first?.stageStartedAt == at)
                    #expect(state.updatedAt == at)
                })
        }
        #expect(harness.workshop.moves.map(\.to) == Array(stages.dropFirst()))
        // Finished: off the board, still among the latest, and nothing more is due before midnight.
        #expect(floor.currentOutput.inProgress.isEmpty)
        #expect(floor.currentOutput.recentOrders.first?.status == stages.last)
        await harness.clock.advance(by: .seconds(3_600))
        #expect(harness.workshop.moves.count == 4)
        #expect(floor.currentOutput.guitarsOrderedToday == 1)
        await store.finish()
    }

    @Test func thePaceSetsHowLongAStageTakes() async {
        let harness = Harness()
        let base = harness.base
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        var (store, _) = harness.floor(pace: WorkshopPace(perStage: .seconds(90)))
        store.send(.start)
        await store.receive(
            .loaded(recentOrders: [order], inProgress: [order], guitarsOrderedToday: 1, at: base), checking: { _ in })
        await store.receive(.advanced([], at: base))
        await harness.clock.advance(by: .seconds(89))
        await harness.clock.advance(by: .seconds(1))
        let shaped = Self.moved(order, through: [.bodyShaping], seconds: 90)
        await store.receive(
            .advanced([shaped], at: base + 90),
            checking: { #expect($0.inProgress.first?.stageStartedAt == order.placedAt.addingTimeInterval(90)) })
        await harness.clock.advance(by: .seconds(90))
        await store.receive(
            .advanced([Self.moved(shaped, through: [.finishing], seconds: 90)], at: base + 180),
            checking: { #expect($0.inProgress.first?.status == .finishing) })
        await store.finish()
    }

    @Test func aDayPerStageByDefaultAndTheTimerWakesAtMidnight() async {
        let harness = Harness()
        let base = harness.base
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        var (store, _) = harness.floor(pace: .days)
        store.send(.start)
        await store.receive(
            .loaded(recentOrders: [order], inProgress: [order], guitarsOrderedToday: 1, at: base), checking: { _ in })
        await store.receive(.advanced([], at: base))
        // Midnight UTC comes first: the timer wakes, moves nothing, and today's count starts again.
        let midnight = WorkshopFloorState.startOfUTCDay(containing: base).addingTimeInterval(86_400)
        let untilMidnight = midnight.timeIntervalSince(base)
        await harness.clock.advance(by: .seconds(untilMidnight))
        await store.receive(
            .advanced([], at: midnight),
            checking: { state in
                #expect(state.guitarsOrderedToday == 0)
                #expect(state.today == midnight)
            })
        // A day after it was placed, the order moves on.
        await harness.clock.advance(by: .seconds(86_400 - untilMidnight))
        await store.receive(
            .advanced([Self.moved(order, through: [.bodyShaping], seconds: 86_400)], at: base + 86_400),
            checking: { #expect($0.inProgress.first?.status == .bodyShaping) })
        #expect(harness.workshop.moves.count == 1)
        await store.finish()
    }

    // MARK: - Waking

    @Test func aNewOrderWakesTheTimer() async {
        let harness = Harness()
        let base = harness.base
        // Nothing in progress: the floor sleeps with nothing due (until midnight, hours away).
        var (store, floor) = await harness.startedEmpty()
        await harness.clock.advance(by: .seconds(30))

        let order = Fixture.order(1, minutes: 0.5)
        harness.workshop.store(order)
        floor.orderPlaced(order)
        // Shown at once and counted once; the timer wakes and asks what is due.
        #expect(floor.currentOutput.recentOrders == [order])
        #expect(floor.currentOutput.inProgress == [order])
        #expect(floor.currentOutput.guitarsOrderedToday == 1)
        await store.receive(.advanced([], at: base + 30), checking: { _ in })
        // Told again, it is not counted again, and wakes nobody: the timer's alarm is set for
        // its stage already.
        floor.orderPlaced(order)
        #expect(floor.currentOutput.guitarsOrderedToday == 1)
        // Without the wake-up it would sleep past this; with it, the order moves on time.
        await harness.clock.advance(by: .seconds(10))
        await store.receive(
            .advanced([Self.moved(order, through: [.bodyShaping])], at: base + 40),
            checking: { #expect($0.inProgress.first?.status == .bodyShaping) })
        #expect(harness.workshop.moves.count == 1)
        await store.finish()
    }

    @Test func anOrderDueAfterTheTimersNextPassDoesNotWakeItThatPassFindsIt() async {
        let harness = Harness()
        let base = harness.base
        var (store, floor) = await harness.startedEmpty()
        let first = Fixture.order(1, minutes: 0)
        harness.workshop.store(first)
        floor.orderPlaced(first)
        // Due before midnight, when the timer slept till: it wakes, and sleeps till the order's stage ends.
        await store.receive(.advanced([], at: base), checking: { _ in })
        await harness.clock.advance(by: .seconds(5))
        let second = Fixture.order(2, minutes: 5.0 / 60)
        harness.workshop.store(second)
        floor.orderPlaced(second)
        #expect(floor.currentOutput.inProgress == [first, second])
        // No pass for it (one would be received here, before the first order's move).
        await harness.clock.advance(by: .seconds(5))
        await store.receive(
            .advanced([Self.moved(first, through: [.bodyShaping])], at: base + 10), checking: { _ in })
        await harness.clock.advance(by: .seconds(5))
        await store.receive(
            .advanced([Self.moved(second, through: [.bodyShaping])], at: base + 15), checking: { _ in })
        #expect(harness.workshop.moves.count == 2)
        await store.finish()
    }

    @Test func anOrderPlacedBeforeTheFloorLoadedIsKeptAndCountedOnce() async {
        let harness = Harness()
        let base = harness.base
        let order = Fixture.order(1, minutes: 0, quantity: 2)
        var (store, floor) = harness.floor()
        // Placed while the store is read, and read without it (written just after the read).
        store.send(.placed(order, at: base)) {
            $0.recentOrders = [order]
            $0.inProgress = [order]
            $0.guitarsOrderedToday = 2
        }
        store.send(.start)
        await store.receive(.loaded(recentOrders: [], inProgress: [], guitarsOrderedToday: 0, at: base))
        #expect(floor.currentOutput.recentOrders == [order])
        #expect(floor.currentOutput.guitarsOrderedToday == 2)
        // Two passes: the first, and the one the order's wake-up asked for.
        await store.receive(.advanced([], at: base))
        await store.receive(.advanced([], at: base))
        await store.finish()
    }

    // MARK: - Restarts and errors

    @Test func aRestartedFloorResumesFromTheStoredStages() async {
        let harness = Harness()
        let base = harness.base
        // Stored by the server before: one order mid-stage, one stages behind (the server was down).
        let midStage = Fixture.order(1, minutes: -1, status: .finishing, stageStartedAt: base - 4)
        let behind = Fixture.order(2, minutes: -2, shipping: .pickup, status: .bodyShaping, stageStartedAt: base - 35)
        harness.workshop.store(midStage)
        harness.workshop.store(behind)
        var (store, floor) = harness.floor(pace: .demo)
        store.send(.start)
        await store.receive(
            .loaded(
                recentOrders: [midStage, behind], inProgress: [behind, midStage], guitarsOrderedToday: 2, at: base),
            checking: { _ in })

        // The order behind catches up at once, one stage per pass, none skipped, ending picked up.
        var caughtUp = behind
        for stage in [OrderStatus.finishing, .setup, .readyForPickup] {
            caughtUp = Self.moved(caughtUp, through: [stage])
            await store.receive(.advanced([caughtUp], at: base), checking: { _ in })
        }
        #expect(
            harness.workshop.moves == [
                .init(number: behind.number, from: .bodyShaping, to: .finishing, startedAt: base - 25),
                .init(number: behind.number, from: .finishing, to: .setup, startedAt: base - 15),
                .init(number: behind.number, from: .setup, to: .readyForPickup, startedAt: base - 5),
            ])
        #expect(floor.currentOutput.inProgress.map(\.number) == [midStage.number])
        // The one mid-stage keeps its stage's start: it moves 6 s later, not a pace after the restart.
        await harness.clock.advance(by: .seconds(5))
        await harness.clock.advance(by: .seconds(1))
        await store.receive(
            .advanced([Self.moved(midStage, through: [.setup])], at: base + 6),
            checking: { #expect($0.inProgress.first?.stageStartedAt == base + 6) })
        await store.finish()
    }

    @Test func aDatabaseErrorIsRetriedAfterABoundedBackoff() async {
        let harness = Harness()
        let base = harness.base
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        // The load's three calls fail, then one more call: the store is down for a while.
        harness.workshop.failFloorCalls(4)
        var (store, floor) = harness.floor(pace: .demo)
        store.send(.start)
        // The first retry waits a second on the clock; the second, two (a retry that came sooner
        // would be received here instead).
        await store.receive(.retrying(after: .seconds(1)))
        #expect(harness.workshop.floorCounts.recentOrders == 1)
        #expect(floor.currentOutput.recentOrders == [])
        await harness.clock.advance(by: .milliseconds(999))
        await harness.clock.advance(by: .milliseconds(1))
        await store.receive(.retrying(after: .seconds(2)))
        await harness.clock.advance(by: .milliseconds(1_999))
        await harness.clock.advance(by: .milliseconds(1))
        await store.receive(
            .loaded(recentOrders: [order], inProgress: [order], guitarsOrderedToday: 1, at: base + 3),
            checking: { _ in })
        await store.receive(.advanced([], at: base + 3))
        // Loaded; the order still moves on time after the outage.
        await harness.clock.advance(by: .seconds(7))
        await store.receive(
            .advanced([Self.moved(order, through: [.bodyShaping])], at: base + 10),
            checking: { #expect($0.inProgress.first?.stageStartedAt == order.placedAt.addingTimeInterval(10)) })
        await store.finish()
    }

    @Test func theBackoffIsBounded() {
        #expect(WorkshopFloorFeature.firstRetryDelay == .seconds(1))
        #expect(WorkshopFloorFeature.longestRetryDelay == .seconds(60))
    }

    @Test func theWaitIsTheEarlierOfTheNextChangeAndMidnight() {
        let noon = WorkshopFloorState.startOfUTCDay(containing: Fixture.base).addingTimeInterval(43_200)
        #expect(WorkshopFloorFeature.wait(from: noon, until: noon + 10, afterMoving: false) == .seconds(10))
        #expect(WorkshopFloorFeature.wait(from: noon, until: nil, afterMoving: false) == .seconds(43_200))
        #expect(WorkshopFloorFeature.wait(from: noon, until: noon + 50_000, afterMoving: false) == .seconds(43_200))
        // Due already: at once after a move, a millisecond if nothing moved (the clocks disagree).
        #expect(WorkshopFloorFeature.wait(from: noon, until: noon - 1, afterMoving: true) == .zero)
        #expect(WorkshopFloorFeature.wait(from: noon, until: noon - 1, afterMoving: false) == .milliseconds(1))
    }

    @Test func cancellingRunEndsItAndTheOutputs() async {
        let harness = Harness()
        let floor = WorkshopFloor(environment: harness.environment, pace: .demo)
        let outputs = floor.outputs()
        #expect(floor.subscriberCount == 1)
        let running = Task { await floor.run() }
        running.cancel()
        await running.value
        var received = 0
        for await _ in outputs { received += 1 }
        #expect(received >= 1)
        #expect(floor.subscriberCount == 0)
        #expect(floor.store.runningEffects == 0)
    }
}
