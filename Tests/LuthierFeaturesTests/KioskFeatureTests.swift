import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierFeatures

/// The kiosk on a manual clock, as marbles: each test feeds the inputs (builders' guitars, floor
/// outputs, time) and receives the actions the throttle, the floor subscription and the timer
/// send back, in order, with the state after each. Nothing polls: `receive` waits for the next
/// action, and time moves only when the test advances the clock.
@Suite struct KioskFeatureTests {
    typealias Fixture = WorkshopFloorFixture

    /// Distinct guitars, in a fixed order, for bursts.
    static let guitars = Array(Guitar.allConfigurations.filter { $0 != .standard }.prefix(40))

    /// The kiosk's inputs and clock; `now` is the clock's time after `base`.
    final class Harness: Sendable {
        let clock = ManualClock()
        let base = WorkshopFloorFixture.base
        let counters = Mutex(KioskCounters())
        let builds: AsyncStream<Guitar>
        let builderActed: @Sendable (Guitar) -> Void
        let floorOutputs: AsyncStream<WorkshopFloorOutput>
        let floorInput: AsyncStream<WorkshopFloorOutput>.Continuation

        init() {
            (builds, builderActed) = KioskFeed.builderInput()
            (floorOutputs, floorInput) = AsyncStream<WorkshopFloorOutput>.makeStream()
        }

        var environment: LuthierEnvironment {
            let clock = clock
            let base = base
            return LuthierEnvironment.test(
                clock: clock, now: { base.addingTimeInterval(Self.seconds(clock.now.offset)) })
        }

        /// The wall-clock time `offset` after the start.
        func at(_ offset: Duration) -> Date { base.addingTimeInterval(Self.seconds(offset)) }

        static func seconds(_ duration: Duration) -> TimeInterval {
            let (seconds, attoseconds) = duration.components
            return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        }

        /// A kiosk following the test's floor stream (or `floor`).
        func feed(
            floor: WorkshopFloorOutput? = nil, following outputs: (@Sendable () -> WorkshopFloorOutputs)? = nil,
            feedback: AsyncStream<(KioskFeature.Action, KioskState)>.Continuation? = nil
        ) -> KioskFeed {
            let floorOutputs = floorOutputs
            return KioskFeed(
                environment: environment, floor: floor ?? WorkshopFloorOutput(updatedAt: base),
                floorOutputs: outputs ?? { floorOutputs }, builds: builds,
                counters: { [self] in self.counters.withLock { $0 } },
                feedback: feedback)
        }

        func testStore(
            floor: WorkshopFloorOutput? = nil, following outputs: (@Sendable () -> WorkshopFloorOutputs)? = nil
        ) -> (TestStore<KioskFeature>, KioskFeed) {
            var feed: KioskFeed?
            let store = TestStore<KioskFeature>(making: { feedback in
                let made = self.feed(floor: floor, following: outputs, feedback: feedback)
                feed = made
                return made.store
            })
            return (store, feed ?? self.feed())
        }
    }

    // MARK: - The builders' throttle

    @Test func aBurstShowsTheFirstAtOnceAndThenOnlyTheLatestAfterTheInterval() async {
        let harness = Harness()
        var (store, _) = harness.testStore()
        store.send(.start)

        // Ten guitars within 500 ms: the first is shown at once…
        let burst = Array(Self.guitars.prefix(10))
        harness.builderActed(burst[0])
        await store.receive(.built(burst[0])) {
            $0.showcase = .building(burst[0])
            $0.quietTicks = 0
        }
        for guitar in burst.dropFirst() {
            await harness.clock.advance(by: .milliseconds(50))
            harness.builderActed(guitar)
        }
        // …and when the interval is over, the latest; the eight between never are (had any been
        // sent, it would be received here instead).
        await harness.clock.advance(by: .milliseconds(50))
        await store.receive(.built(burst[9])) { $0.showcase = .building(burst[9]) }

        // Showing it opened another interval, which ends with nothing new; a builder acting after
        // that calm spell is shown at once, with no time passing.
        await harness.clock.advance(by: KioskFeature.throttleInterval)
        harness.builderActed(burst[3])
        await store.receive(.built(burst[3])) { $0.showcase = .building(burst[3]) }
        #expect(harness.clock.now.offset == .seconds(1))
        await store.finish()
    }

    @Test func builderStormAtMostTwoUpdatesASecondAndTheLastIsAlwaysShown() async {
        let harness = Harness()
        var (store, _) = harness.testStore()
        store.send(.start)

        // A guitar every 100 ms for three seconds (thirty builders taking turns).
        let storm = Array(Self.guitars.prefix(30))
        var shown: [(index: Int, at: Duration)] = []
        for (index, guitar) in storm.enumerated() {
            if index > 0 {
                await harness.clock.advance(by: .milliseconds(100))
            }
            if index > 0 && index % 5 == 0 {
                // The interval ended: the newest guitar so far is shown, and the next begins.
                await store.receive(.built(storm[index - 1])) { $0.showcase = .building(storm[index - 1]) }
                shown.append((index - 1, harness.clock.now.offset))
            }
            harness.builderActed(guitar)
            if index == 0 {
                await store.receive(.built(guitar)) {
                    $0.showcase = .building(guitar)
                    $0.quietTicks = 0
                }
                shown.append((0, harness.clock.now.offset))
            }
        }
        // The last one is shown when the interval after the previous one ends.
        await harness.clock.advance(by: .milliseconds(100))
        await store.receive(.built(storm[29])) { $0.showcase = .building(storm[29]) }
        shown.append((29, harness.clock.now.offset))

        #expect(shown.map(\.index) == [0, 4, 9, 14, 19, 24, 29])
        #expect(shown.map(\.at) == (0...6).map { Duration.milliseconds(500 * $0) })
        await store.finish()
    }

    @Test func theSameGuitarAgainChangesNothing() async {
        let harness = Harness()
        var (store, feed) = harness.testStore()
        store.send(.start)
        let guitar = Self.guitars[0]
        harness.builderActed(guitar)
        await store.receive(.built(guitar)) {
            $0.showcase = .building(guitar)
            $0.quietTicks = 0
        }
        var outputs = feed.outputs().makeAsyncIterator()
        #expect(await outputs.next() == feed.currentOutput)
        await harness.clock.advance(by: KioskFeature.throttleInterval)
        // Taken and folded, but the state is the same, so no reader is told.
        harness.builderActed(guitar)
        await store.receive(.built(guitar))
        await harness.clock.advance(by: KioskFeature.throttleInterval)
        harness.builderActed(Self.guitars[1])
        await store.receive(.built(Self.guitars[1])) { $0.showcase = .building(Self.guitars[1]) }
        #expect(await outputs.next()?.showcase.description == Self.guitars[1].description)
        await store.finish()
    }

    // MARK: - The timer

    @Test func theTickUpdatesTheCountersAndTheRelativeTimes() async {
        let harness = Harness()
        let placed = Fixture.order(1, minutes: -0.5)  // thirty seconds before the kiosk started
        var (store, feed) = harness.testStore(
            floor: WorkshopFloorOutput(
                recentOrders: [placed], inProgress: [placed], guitarsOrderedToday: 1, updatedAt: placed.placedAt))
        store.send(.start)
        #expect(feed.currentOutput.recentOrders.map(\.ago) == ["just now"])
        #expect(feed.currentOutput.guitarsInCarts == 0)
        // A builder keeps the attract loop away, so only the tick's own changes show.
        harness.builderActed(Self.guitars[0])
        await store.receive(.built(Self.guitars[0])) {
            $0.showcase = .building(Self.guitars[0])
            $0.quietTicks = 0
        }

        // The counters change in the sessions: the kiosk shows them on the next tick, not before
        // (a tick before 5 s would be received here instead).
        let busy = KioskCounters(guitarsInCarts: 3, liveSessions: 2)
        harness.counters.withLock { $0 = busy }
        await harness.clock.advance(by: .milliseconds(4_999))
        await harness.clock.advance(by: .milliseconds(1))
        await store.receive(.tick(now: harness.at(.seconds(5)), counters: busy)) {
            $0.now = harness.at(.seconds(5))
            $0.counters = busy
            $0.quietTicks = 1
        }
        #expect(feed.currentOutput.guitarsInCarts == 3)
        #expect(feed.currentOutput.liveSessions == 2)

        // Every tick reads the time: the order is "just now" until a minute after it was placed.
        for tick in 2...5 {
            await harness.clock.advance(by: KioskFeature.tickInterval)
            await store.receive(.tick(now: harness.at(.seconds(5 * tick)), counters: busy)) {
                $0.now = harness.at(.seconds(5 * tick))
                $0.quietTicks = tick
            }
            #expect(feed.currentOutput.recentOrders.map(\.ago) == ["just now"])
        }
        let busier = KioskCounters(guitarsInCarts: 5, liveSessions: 4)
        harness.counters.withLock { $0 = busier }
        await harness.clock.advance(by: KioskFeature.tickInterval)
        await store.receive(.tick(now: harness.at(.seconds(30)), counters: busier)) {
            $0.now = harness.at(.seconds(30))
            $0.counters = busier
            $0.quietTicks = 6
        }
        #expect(feed.currentOutput.recentOrders.map(\.ago) == ["1 min ago"])
        #expect(feed.currentOutput.guitarsInCarts == 5)
        #expect(feed.currentOutput.liveSessions == 4)
        #expect(!feed.currentOutput.showcase.isAttract)
        await store.finish()
    }

    @Test func aQuietMinuteStartsTheAttractLoopOnTheClockAndABuilderStopsIt() async {
        let harness = Harness()
        var (store, feed) = harness.testStore()
        store.send(.start)
        let guitar = Self.guitars[5]
        harness.builderActed(guitar)
        await store.receive(.built(guitar)) {
            $0.showcase = .building(guitar)
            $0.quietTicks = 0
        }
        // Ticks at 5 s … 55 s keep the guitar; the twelfth, at 60 s, starts the loop.
        for tick in 1...KioskFeature.quietTicks {
            await harness.clock.advance(by: KioskFeature.tickInterval)
            await store.receive(.tick(now: harness.at(.seconds(5 * tick)), counters: KioskCounters())) {
                $0.now = harness.at(.seconds(5 * tick))
                $0.quietTicks = tick
                if tick == KioskFeature.quietTicks { $0.showcase = .attract(0) }
            }
        }
        #expect(feed.currentOutput.showcase.description == KioskState.attractGuitars[0].description)
        #expect(feed.currentOutput.showcase.heading == "From the workshop")
        // One configuration per tick.
        for index in 1...3 {
            await harness.clock.advance(by: KioskFeature.tickInterval)
            let now = harness.at(.seconds(60 + 5 * index))
            await store.receive(.tick(now: now, counters: KioskCounters())) {
                $0.now = now
                $0.showcase = .attract(index)
            }
        }
        // A builder stops it at once, between ticks.
        await harness.clock.advance(by: .seconds(1))
        harness.builderActed(guitar)
        await store.receive(.built(guitar)) {
            $0.showcase = .building(guitar)
            $0.quietTicks = 0
        }
        #expect(feed.currentOutput.showcase.heading == "Now building")
        await store.finish()
    }

    @Test func ticksMissedWhileStalledFireOnceAndTheScheduleGoesOn() async {
        let harness = Harness()
        var (store, _) = harness.testStore()
        store.send(.start)
        // The process stalls for 23 s: the ticks at 5, 10, 15 and 20 s are missed, and one fires
        // when it wakes (four in a burst would be received here instead)…
        await harness.clock.advance(by: .seconds(23))
        await store.receive(.tick(now: harness.at(.seconds(23)), counters: KioskCounters())) {
            $0.now = harness.at(.seconds(23))
            $0.showcase = .attract(1)
        }
        // …and the next is on the schedule, at 25 s.
        await harness.clock.advance(by: .seconds(2))
        await store.receive(.tick(now: harness.at(.seconds(25)), counters: KioskCounters())) {
            $0.now = harness.at(.seconds(25))
            $0.showcase = .attract(2)
        }
        await store.finish()
    }

    // MARK: - The floor

    @Test func floorOutputsReplaceTheOrdersAndTheBoardAtOnce() async {
        let harness = Harness()
        var (store, feed) = harness.testStore()
        store.send(.start)
        var floor = WorkshopFloorState(now: harness.base)
        for order in (1...3).map({ Fixture.order($0, quantity: $0) }) {
            floor = WorkshopFloorState.reduce(floor, .placed(order, at: harness.base))
            harness.floorInput.yield(floor.output)
            await store.receive(.floor(floor.output)) { [floor] in $0.floor = floor.output }
        }
        let output = feed.currentOutput
        #expect(
            output.recentOrders.map(\.description) == [
                "3 × Natural Casual with Mahogany body and Rosewood fretboard",
                "2 × Natural Casual with Mahogany body and Rosewood fretboard",
                "Natural Casual with Mahogany body and Rosewood fretboard",
            ])
        #expect(output.guitarsOrderedToday == 6)
        #expect(output.board.first?.count == 3)
        #expect(harness.clock.now.offset == .zero)
        await store.finish()
    }

    @Test func theWorkshopFloorsOutputsAccumulateIntoTheKiosksOrdersAndBoard() async {
        let harness = Harness()
        // The floor on a clock of its own, so that its stage timer and the kiosk's ticks are
        // advanced apart and every action of each comes in a known order.
        let floorClock = ManualClock()
        let workshop = FakeWorkshop()
        let base = harness.base
        let floorEnvironment = LuthierEnvironment.test(
            clock: floorClock, now: { base.addingTimeInterval(Harness.seconds(floorClock.now.offset)) },
            workshop: workshop.client)
        var made: WorkshopFloor?
        var floorStore = TestStore<WorkshopFloorFeature>(making: { feedback in
            let floor = WorkshopFloor(environment: floorEnvironment, pace: .demo, feedback: feedback)
            made = floor
            return floor.store
        })
        guard let floor = made else { return }
        floorStore.send(.start)
        await floorStore.receive(.loaded(recentOrders: [], inProgress: [], guitarsOrderedToday: 0, at: base))
        await floorStore.receive(.advanced([], at: base))

        var (store, feed) = harness.testStore(following: { floor.outputs() })
        store.send(.start)
        await store.receive(.floor(WorkshopFloorOutput(updatedAt: base)))

        let orders = (1...12).map { Fixture.order($0, minutes: 0, quantity: 1) }
        for (index, order) in orders.enumerated() {
            workshop.store(order)
            floor.orderPlaced(order)
            // The first wakes the stage timer (asleep till midnight): a pass that moves nothing.
            // The others are due when its alarm rings next, and wake nobody.
            if index == 0 { await floorStore.receive(.advanced([], at: base), checking: { _ in }) }
            #expect(floor.currentOutput.guitarsOrderedToday == index + 1)
            await store.receive(.floor(floor.currentOutput)) { $0.floor = floor.currentOutput }
        }
        #expect(feed.currentOutput.recentOrders.count == WorkshopFloorState.recentLimit)
        #expect(feed.currentOutput.board.map(\.count) == [12, 0, 0, 0])

        // A pace later every order moves one stage: the board follows, column by column.
        await floorClock.advance(by: .seconds(10))
        let moved = orders.map { Fixture.moved($0, to: .bodyShaping) }
        await floorStore.receive(.advanced(moved, at: base + 10), checking: { #expect($0.inProgress.count == 12) })
        await store.receive(.floor(floor.currentOutput)) { $0.floor = floor.currentOutput }
        #expect(feed.currentOutput.board.map(\.count) == [0, 12, 0, 0])
        #expect(feed.currentOutput.recentOrders.allSatisfy { $0.stage == "Body shaping" })
        #expect(feed.currentOutput.guitarsOrderedToday == 12)
        await store.finish()
        await floorStore.finish()
    }

    // MARK: - Readers

    @Test func aReaderThatDoesNotReadGetsOnlyTheLatestOutput() async {
        let harness = Harness()
        var (store, feed) = harness.testStore()
        store.send(.start)
        var slow = feed.outputs().makeAsyncIterator()
        #expect(await slow.next() == feed.currentOutput)
        #expect(feed.subscriberCount == 1)

        // Many changes while the slow reader reads nothing: builds and floors.
        for (index, guitar) in Self.guitars.prefix(6).enumerated() {
            harness.builderActed(guitar)
            await store.receive(.built(guitar)) {
                $0.showcase = .building(guitar)
                $0.quietTicks = 0
            }
            let floor = WorkshopFloorOutput(
                recentOrders: [Fixture.order(index + 1)], guitarsOrderedToday: index + 1, updatedAt: harness.base)
            harness.floorInput.yield(floor)
            await store.receive(.floor(floor)) { $0.floor = floor }
            await harness.clock.advance(by: KioskFeature.throttleInterval)
        }
        // It gets one value, the newest, not the backlog…
        let latest = feed.currentOutput
        #expect(latest.guitarsOrderedToday == 6)
        #expect(await slow.next() == latest)
        // …and then the next change, not something older.
        harness.builderActed(Self.guitars[20])
        await store.receive(.built(Self.guitars[20])) { $0.showcase = .building(Self.guitars[20]) }
        #expect(await slow.next()?.showcase.description == Self.guitars[20].description)
        #expect(feed.subscriberCount == 1)
        await store.finish()
    }

    @Test func readersThatStopAreUnsubscribedAndCloseEndsThemAll() async {
        let harness = Harness()
        let feed = harness.feed()
        let readers = (0..<5).map { _ in
            let outputs = feed.outputs()
            return Task {
                var count = 0
                for await _ in outputs { count += 1 }
                return count
            }
        }
        #expect(feed.subscriberCount == 5)
        readers[0].cancel()
        _ = await readers[0].value
        #expect(feed.subscriberCount == 4)

        let running = Task { await feed.run() }
        feed.close()
        for reader in readers.dropFirst() {
            #expect(await reader.value >= 1)
        }
        #expect(feed.subscriberCount == 0)
        // A reader arriving after the close gets the end at once.
        var late = feed.outputs().makeAsyncIterator()
        #expect(await late.next() == nil)
        // Builders after the close change nothing; the feed's run has ended.
        let before = feed.currentOutput
        harness.builderActed(Self.guitars[0])
        await running.value
        #expect(feed.currentOutput == before)
        #expect(feed.store.runningEffects == 0)
    }
}
