import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization
import Testing

/// A `TestClock` that knows which sleeps are pending, so a test advances time only once the feed's
/// timers are asleep, and knows when the sleeps it ended have returned to the code that slept.
final class SleepWatchingClock: Clock, Sendable {
    typealias Duration = Swift.Duration
    typealias Instant = TestClock<Swift.Duration>.Instant

    let base = TestClock<Swift.Duration>()
    let start: Instant

    private struct State {
        var pending: [Int: Instant] = [:]
        var nextID = 0
    }

    private let state = Mutex(State())

    init() {
        start = base.now
    }

    var now: Instant { base.now }
    var minimumResolution: Duration { base.minimumResolution }

    func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.pending[id] = deadline
            return id
        }
        defer { _ = state.withLock { $0.pending.removeValue(forKey: id) } }
        try await base.sleep(until: deadline, tolerance: tolerance)
    }

    /// Sleeps waiting right now.
    var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Virtual time since the clock was made.
    var elapsed: Duration { start.duration(to: now) }

    /// Advances by `duration` (at most one sleep should fall due on the way: tests step finely);
    /// true once every sleep it ended has returned to its sleeper.
    func advance(by duration: Duration) async -> Bool {
        let target = now.advanced(by: duration)
        let due = state.withLock { state in state.pending.filter { $0.value <= target }.map(\.key) }
        await base.advance(to: target)
        return await settle { self.state.withLock { state in due.allSatisfy { state.pending[$0] == nil } } }
    }
}

/// The kiosk feed on a test clock: `now` is the clock's time after `base`, the floor is a stream
/// the test feeds (or the real `WorkshopFloor`), and the counters are what the test sets.
@Suite struct KioskFeedTests {
    typealias Fixture = WorkshopFloorFixture

    /// Distinct guitars, in a fixed order, for bursts.
    static let guitars = Array(Guitar.allConfigurations.filter { $0 != .standard }.prefix(40))

    final class Harness: Sendable {
        let clock = SleepWatchingClock()
        let base = WorkshopFloorFixture.base
        let environment: LuthierEnvironment
        let feed: KioskFeed
        let floor: AsyncStream<WorkshopFloorOutput>
        let floorInput: AsyncStream<WorkshopFloorOutput>.Continuation
        let counters = Mutex(KioskCounters())

        init(floor initialFloor: WorkshopFloorOutput? = nil, workshop: WorkshopClient = .unimplemented) {
            let clock = clock
            let base = base
            environment = LuthierEnvironment.test(
                clock: clock,
                now: { base.addingTimeInterval(Self.seconds(clock.elapsed)) },
                workshop: workshop)
            feed = KioskFeed(environment: environment, floor: initialFloor ?? WorkshopFloorOutput(updatedAt: base))
            (floor, floorInput) = AsyncStream<WorkshopFloorOutput>.makeStream()
        }

        static func seconds(_ duration: Duration) -> TimeInterval {
            let (seconds, attoseconds) = duration.components
            return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        }

        /// Runs the feed on the test's floor stream until the returned task is cancelled.
        func run() -> Task<Void, Never> {
            run(floor: floor)
        }

        func run(floor: AsyncStream<WorkshopFloorOutput>) -> Task<Void, Never> {
            let feed = feed
            return Task { [self] in await feed.run(floor: floor) { self.counters.withLock { $0 } } }
        }

        /// The feed's timers asleep: the tick, plus the throttle when it is waiting.
        func asleep(_ sleeps: Int) async -> Bool {
            await settle { clock.pendingCount == sleeps }
        }

        var showing: String { feed.currentOutput.showcase.description }
        var isBuilding: Bool { !feed.currentOutput.showcase.isAttract }
    }

    /// Every distinct showcase a reader of `outputs()` saw, with the virtual time it saw it at.
    final class ShowcaseRecorder: Sendable {
        struct Entry: Equatable {
            var at: Duration
            var description: String
        }

        private let entries = Mutex<[Entry]>([])
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(feed: KioskFeed, clock: SleepWatchingClock) {
            let outputs = feed.outputs()
            let reader = Task { [weak self] in
                for await output in outputs {
                    self?.record(Entry(at: clock.elapsed, description: output.showcase.description))
                }
            }
            task.withLock { $0 = reader }
        }

        private func record(_ entry: Entry) {
            entries.withLock { if $0.last?.description != entry.description { $0.append(entry) } }
        }

        var recorded: [Entry] { entries.withLock { $0 } }
        var shown: [String] { recorded.map(\.description) }

        func stop() { task.withLock { $0?.cancel() } }
    }

    // MARK: - The builders' pipeline

    @Test func aBurstShowsTheFirstAtOnceAndThenOnlyTheLatestAfterTheInterval() async throws {
        let harness = Harness()
        let recorder = ShowcaseRecorder(feed: harness.feed, clock: harness.clock)
        defer { recorder.stop() }
        let running = harness.run()
        defer { running.cancel() }
        #expect(await harness.asleep(1))
        let attract = KioskState.attractGuitars[0].description
        #expect(await settle { recorder.shown == [attract] })

        // Ten guitars within 500 ms: one at once, then one every 50 ms.
        let burst = Array(Self.guitars.prefix(10))
        harness.feed.builderActed(burst[0])
        #expect(await settle { harness.showing == burst[0].description })
        // The recorder reads it before time moves on, so it notes when it was shown.
        #expect(await settle { recorder.recorded.last?.description == burst[0].description })
        #expect(harness.feed.currentOutput.showcase.heading == "Now building")
        #expect(await harness.asleep(2))
        for guitar in burst.dropFirst() {
            #expect(await harness.clock.advance(by: .milliseconds(50)))
            harness.feed.builderActed(guitar)
            #expect(!(await settle(until: { harness.showing != burst[0].description }, yields: 300)))
        }
        #expect(harness.clock.elapsed == .milliseconds(450))
        #expect(await harness.clock.advance(by: .milliseconds(49)))
        #expect(!(await settle(until: { harness.showing != burst[0].description }, yields: 300)))

        // When the interval is over, the latest is shown; the eight between never were.
        #expect(await harness.clock.advance(by: .milliseconds(1)))
        #expect(await settle { harness.showing == burst[9].description })
        #expect(await settle { recorder.shown.count == 3 })
        #expect(
            recorder.recorded.dropFirst() == [
                .init(at: .zero, description: burst[0].description),
                .init(at: .milliseconds(500), description: burst[9].description),
            ])

        // Showing it started another interval; it ends with nothing new, and nothing changes.
        #expect(await harness.asleep(2))
        #expect(await harness.clock.advance(by: .milliseconds(500)))
        #expect(await harness.asleep(1))
        #expect(harness.showing == burst[9].description)
        #expect(recorder.shown.count == 3)

        // A builder acting after a calm spell is shown at once again.
        harness.feed.builderActed(burst[3])
        #expect(await settle { harness.showing == burst[3].description })
        #expect(harness.clock.elapsed == .milliseconds(1_000))
    }

    @Test func builderStormAtMostTwoUpdatesASecondAndTheLastIsAlwaysShown() async throws {
        let harness = Harness()
        let recorder = ShowcaseRecorder(feed: harness.feed, clock: harness.clock)
        defer { recorder.stop() }
        let running = harness.run()
        defer { running.cancel() }
        #expect(await harness.asleep(1))

        // A guitar every 100 ms for three seconds (thirty builders taking turns).
        let storm = Array(Self.guitars.prefix(30))
        for (index, guitar) in storm.enumerated() {
            if index > 0 {
                #expect(await harness.clock.advance(by: .milliseconds(100)))
                if index % 5 == 0 {
                    // The interval ended: the newest guitar so far is shown, and a new one begins.
                    #expect(await settle { harness.showing == storm[index - 1].description })
                    // The recorder reads it before time moves on, so it notes when it was shown.
                    #expect(await settle { recorder.recorded.last?.description == storm[index - 1].description })
                    #expect(await harness.asleep(2))
                }
            }
            harness.feed.builderActed(guitar)
            if index == 0 {
                #expect(await settle { harness.showing == guitar.description })
                #expect(await settle { recorder.recorded.last?.description == guitar.description })
                #expect(await harness.asleep(2))
            }
        }
        // The last one is shown when the interval after the previous one ends.
        #expect(await harness.clock.advance(by: .milliseconds(100)))
        #expect(await settle { harness.showing == storm[29].description })
        #expect(await settle { recorder.recorded.last?.description == storm[29].description })
        #expect(await harness.asleep(2))
        #expect(await harness.clock.advance(by: .milliseconds(500)))
        #expect(await harness.asleep(1))
        #expect(await settle { recorder.recorded.last?.description == storm[29].description })

        let changes = recorder.recorded.dropFirst()  // the first is the attract guitar it started with
        #expect(changes.map(\.description) == [0, 4, 9, 14, 19, 24, 29].map { storm[$0].description })
        #expect(changes.map(\.at) == (0...6).map { Duration.milliseconds(500 * $0) })
        // At most two updates in any second of virtual time, at least 500 ms apart.
        let times = changes.map(\.at)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later - earlier >= KioskFeed.throttleInterval)
        }
        for time in times {
            #expect(times.filter { $0 >= time && $0 < time + .seconds(1) }.count <= 2)
        }
    }

    @Test func theSameGuitarAgainChangesNothing() async throws {
        let harness = Harness()
        let running = harness.run()
        defer { running.cancel() }
        #expect(await harness.asleep(1))
        let guitar = Self.guitars[0]
        harness.feed.builderActed(guitar)
        #expect(await settle { harness.showing == guitar.description })
        var outputs = harness.feed.outputs().makeAsyncIterator()
        let current = await outputs.next()
        #expect(current == harness.feed.currentOutput)
        #expect(await harness.asleep(2))
        harness.feed.builderActed(guitar)
        #expect(await harness.clock.advance(by: KioskFeed.throttleInterval))
        // The throttle took it and slept again, but the output did not change, so none was sent.
        #expect(await harness.asleep(2))
        #expect(harness.showing == guitar.description)
        harness.feed.builderActed(Self.guitars[1])
        #expect(await harness.clock.advance(by: KioskFeed.throttleInterval))
        let next = await outputs.next()
        #expect(next?.showcase.description == Self.guitars[1].description)
    }

    // MARK: - The timer

    @Test func theTickUpdatesTheCountersAndTheRelativeTimes() async throws {
        let placed = Fixture.order(1, minutes: -0.5)  // thirty seconds before the feed started
        let harness = Harness(
            floor: WorkshopFloorOutput(
                recentOrders: [placed], inProgress: [placed], guitarsOrderedToday: 1, updatedAt: placed.placedAt))
        let running = harness.run()
        defer { running.cancel() }
        #expect(await harness.asleep(1))
        #expect(harness.feed.currentOutput.recentOrders.map(\.ago) == ["just now"])
        #expect(harness.feed.currentOutput.guitarsInCarts == 0)
        // A builder keeps the attract loop away, so only the tick's own changes show.
        harness.feed.builderActed(Self.guitars[0])
        #expect(await settle { harness.isBuilding })
        #expect(await harness.asleep(2))
        #expect(await harness.clock.advance(by: KioskFeed.throttleInterval))
        #expect(await harness.asleep(1))

        // The counters change in the sessions: the kiosk shows them on the next tick, not before.
        harness.counters.withLock { $0 = KioskCounters(guitarsInCarts: 3, liveSessions: 2) }
        #expect(await harness.clock.advance(by: .milliseconds(4_499)))
        #expect(!(await settle(until: { harness.feed.currentOutput.guitarsInCarts != 0 }, yields: 300)))
        #expect(await harness.clock.advance(by: .milliseconds(1)))
        #expect(await settle { harness.feed.currentOutput.guitarsInCarts == 3 })
        #expect(harness.feed.currentOutput.liveSessions == 2)
        #expect(await harness.feed.currentState.now == harness.base.addingTimeInterval(5))

        // Every tick reads the time: the order is "just now" until a minute after it was placed.
        for seconds in stride(from: 10, through: 25, by: 5) {
            #expect(await harness.asleep(1))
            #expect(await harness.clock.advance(by: KioskFeed.tickInterval))
            #expect(
                await settle { await harness.feed.currentState.now == harness.base.addingTimeInterval(Double(seconds)) }
            )
            #expect(harness.feed.currentOutput.recentOrders.map(\.ago) == ["just now"])
        }
        harness.counters.withLock { $0 = KioskCounters(guitarsInCarts: 5, liveSessions: 4) }
        #expect(await harness.asleep(1))
        #expect(await harness.clock.advance(by: KioskFeed.tickInterval))
        #expect(await settle { harness.feed.currentOutput.recentOrders.map(\.ago) == ["1 min ago"] })
        #expect(harness.feed.currentOutput.guitarsInCarts == 5)
        #expect(harness.feed.currentOutput.liveSessions == 4)
        #expect(harness.isBuilding)
    }

    @Test func aQuietMinuteStartsTheAttractLoopOnTheClockAndABuilderStopsIt() async throws {
        let harness = Harness()
        let running = harness.run()
        defer { running.cancel() }
        #expect(await harness.asleep(1))
        let guitar = Self.guitars[5]
        harness.feed.builderActed(guitar)
        #expect(await settle { harness.showing == guitar.description })
        #expect(await harness.asleep(2))
        #expect(await harness.clock.advance(by: KioskFeed.throttleInterval))
        #expect(await harness.asleep(1))
        // Ticks at 5 s … 55 s keep the guitar; the twelfth, at 60 s, starts the loop.
        #expect(await harness.clock.advance(by: .milliseconds(4_500)))
        for tick in 1..<KioskFeed.quietTicks {
            #expect(await settle { await harness.feed.currentState.quietTicks == tick })
            #expect(harness.showing == guitar.description)
            #expect(await harness.asleep(1))
            #expect(await harness.clock.advance(by: KioskFeed.tickInterval))
        }
        #expect(harness.clock.elapsed == .seconds(60))
        #expect(await settle { !harness.isBuilding })
        #expect(harness.showing == KioskState.attractGuitars[0].description)
        #expect(harness.feed.currentOutput.showcase.heading == "From the workshop")
        // One configuration per tick.
        for index in 1...3 {
            #expect(await harness.asleep(1))
            #expect(await harness.clock.advance(by: KioskFeed.tickInterval))
            #expect(await settle { harness.showing == KioskState.attractGuitars[index].description })
        }
        // A builder stops it at once, between ticks.
        #expect(await harness.clock.advance(by: .seconds(1)))
        harness.feed.builderActed(guitar)
        #expect(await settle { harness.isBuilding && harness.showing == guitar.description })
        #expect(await harness.feed.currentState.quietTicks == 0)
    }

    // MARK: - The floor

    @Test func floorOutputsReplaceTheOrdersAndTheBoardAtOnce() async throws {
        let harness = Harness()
        let running = harness.run()
        defer { running.cancel() }
        let orders = (1...3).map { Fixture.order($0, quantity: $0) }
        var floor = WorkshopFloorState(now: harness.base)
        for order in orders {
            floor = WorkshopFloorState.reduce(floor, .placed(order, at: harness.base))
            harness.floorInput.yield(floor.output)
            let count = floor.recentOrders.count
            #expect(await settle { harness.feed.currentOutput.recentOrders.count == count })
        }
        let output = harness.feed.currentOutput
        #expect(
            output.recentOrders.map(\.description) == [
                "3 × Natural Casual with Mahogany body and Rosewood fretboard",
                "2 × Natural Casual with Mahogany body and Rosewood fretboard",
                "Natural Casual with Mahogany body and Rosewood fretboard",
            ])
        #expect(output.guitarsOrderedToday == 6)
        #expect(output.board.first?.count == 3)
        #expect(harness.clock.elapsed == .zero)
    }

    @Test func theWorkshopFloorsOutputsAccumulateIntoTheKiosksOrdersAndBoard() async throws {
        let workshop = FakeWorkshop()
        let harness = Harness(workshop: workshop.client)
        let floor = WorkshopFloor(environment: harness.environment, pace: .demo)
        let runningFloor = Task { await floor.run() }
        defer { runningFloor.cancel() }
        let running = harness.run(floor: floor.outputs())
        defer { running.cancel() }
        // The floor loaded (nothing) and sleeps; the feed ticks.
        #expect(await settle { workshop.floorCounts.nextStageChange == 1 })
        #expect(await harness.asleep(2))

        let orders = (1...12).map { Fixture.order($0, minutes: 0, quantity: 1) }
        for (index, order) in orders.enumerated() {
            workshop.store(order)
            await floor.orderPlaced(order)
            #expect(await settle { harness.feed.currentOutput.guitarsOrderedToday == index + 1 })
        }
        let output = harness.feed.currentOutput
        #expect(output.recentOrders.count == WorkshopFloorState.recentLimit)
        #expect(output.board.map(\.count) == [12, 0, 0, 0])
        #expect(await settle { workshop.floorCounts.nextStageChange >= 2 })
        #expect(await harness.asleep(2))

        // A pace later every order moves one stage: the board follows, column by column.
        #expect(await harness.clock.advance(by: .seconds(5)))
        #expect(await harness.asleep(2))
        #expect(harness.feed.currentOutput.board.map(\.count) == [12, 0, 0, 0])
        #expect(await harness.clock.advance(by: .seconds(5)))
        #expect(await settle { harness.feed.currentOutput.board.map(\.count) == [0, 12, 0, 0] })
        #expect(harness.feed.currentOutput.recentOrders.allSatisfy { $0.stage == "Body shaping" })
        #expect(harness.feed.currentOutput.guitarsOrderedToday == 12)
    }

    // MARK: - Readers

    @Test func aReaderThatDoesNotReadGetsOnlyTheLatestOutput() async throws {
        let harness = Harness()
        let running = harness.run()
        defer { running.cancel() }
        #expect(await harness.asleep(1))
        var slow = harness.feed.outputs().makeAsyncIterator()
        #expect(await slow.next() == harness.feed.currentOutput)
        #expect(harness.feed.subscriberCount == 1)

        // Many changes while the slow reader reads nothing: builds, floors and ticks.
        for (index, guitar) in Self.guitars.prefix(6).enumerated() {
            harness.feed.builderActed(guitar)
            #expect(await settle { harness.showing == guitar.description })
            let order = Fixture.order(index + 1)
            harness.floorInput.yield(
                WorkshopFloorOutput(recentOrders: [order], guitarsOrderedToday: index + 1, updatedAt: harness.base))
            #expect(await settle { harness.feed.currentOutput.guitarsOrderedToday == index + 1 })
            #expect(await harness.asleep(2))
            #expect(await harness.clock.advance(by: KioskFeed.throttleInterval))
        }
        // It gets one value, the newest, not the backlog…
        let latest = harness.feed.currentOutput
        #expect(latest.guitarsOrderedToday == 6)
        #expect(await slow.next() == latest)
        // …and then the next change, not something older.
        harness.feed.builderActed(Self.guitars[20])
        #expect(await slow.next()?.showcase.description == Self.guitars[20].description)
        #expect(harness.feed.subscriberCount == 1)
    }

    @Test func readersThatStopAreUnsubscribedAndCloseEndsThemAll() async throws {
        let harness = Harness()
        let readers = (0..<5).map { _ in
            let outputs = harness.feed.outputs()
            return Task {
                var count = 0
                for await _ in outputs { count += 1 }
                return count
            }
        }
        #expect(await settle { harness.feed.subscriberCount == 5 })
        readers[0].cancel()
        _ = await readers[0].value
        #expect(await settle { harness.feed.subscriberCount == 4 })

        let running = harness.run()
        harness.feed.close()
        for reader in readers.dropFirst() {
            #expect(await reader.value >= 1)
        }
        #expect(harness.feed.subscriberCount == 0)
        // A reader arriving after the close gets the end at once.
        var late = harness.feed.outputs().makeAsyncIterator()
        #expect(await late.next() == nil)
        // Builders after the close change nothing; the feed's run ends when cancelled.
        let before = harness.feed.currentOutput
        harness.feed.builderActed(Self.guitars[0])
        #expect(!(await settle(until: { harness.feed.currentOutput != before }, yields: 300)))
        running.cancel()
        await running.value
    }
}
