import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization
import Testing

/// The workshop floor run on a test clock against the fake workshop: `now` is always the test
/// clock's time after `base`, so the wall clock and the timer agree and nothing sleeps for real.
@Suite struct WorkshopFloorTests {
    typealias Fixture = WorkshopFloorFixture

    /// A floor, its clock and workshop, and the wall-clock time the clock stands for.
    struct Harness {
        let clock = TestClock()
        let workshop = FakeWorkshop()
        let floor: WorkshopFloor
        let base = WorkshopFloorFixture.base

        init(pace: WorkshopPace = .demo) {
            let clock = clock
            let start = clock.now
            let base = base
            let environment = LuthierEnvironment.test(
                clock: clock,
                now: { base.addingTimeInterval(Self.seconds(start.duration(to: clock.now))) },
                workshop: workshop.client)
            floor = WorkshopFloor(environment: environment, pace: pace)
        }

        static func seconds(_ duration: Duration) -> TimeInterval {
            let (seconds, attoseconds) = duration.components
            return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        }

        /// Runs the floor until the test ends.
        func run() -> Task<Void, Never> {
            let floor = floor
            return Task { await floor.run() }
        }

        /// Waits (yielding, never sleeping) until the floor sleeps on the clock, so that a test
        /// moves time only once the floor's timer (or retry delay) is set.
        func asleep() async -> Bool {
            for _ in 0..<1_000 {
                do {
                    try await clock.checkSuspension()
                } catch {
                    return true
                }
            }
            return false
        }

        /// The order numbered like `order` as the floor shows it on the board, if it is there.
        func onBoard(_ order: Order) -> Order? {
            floor.currentOutput.inProgress.first { $0.number == order.number }
        }

        /// The order as the floor shows it among the latest.
        func latest(_ order: Order) -> Order? {
            floor.currentOutput.recentOrders.first { $0.number == order.number }
        }
    }

    /// Every stage of one order the floor published, in order, each once (a reader of `outputs()`).
    final class StageRecorder: Sendable {
        private let stages = Mutex<[OrderStatus]>([])
        private let task = Mutex<Task<Void, Never>?>(nil)

        init(floor: WorkshopFloor, number: String) {
            let outputs = floor.outputs()
            let reader = Task { [weak self] in
                for await output in outputs {
                    guard let order = output.recentOrders.first(where: { $0.number == number }) else { continue }
                    self?.record(order.status)
                }
            }
            task.withLock { $0 = reader }
        }

        private func record(_ status: OrderStatus) {
            stages.withLock { if $0.last != status { $0.append(status) } }
        }

        var recorded: [OrderStatus] { stages.withLock { $0 } }

        func stop() { task.withLock { $0?.cancel() } }
    }

    // MARK: - Loading

    @Test func runLoadsTheLatestOrdersTheBoardAndTodaysGuitars() async throws {
        let harness = Harness()
        let yesterday = Fixture.order(1, minutes: -24 * 60, quantity: 2, status: .shipped)
        let pickedUp = Fixture.order(2, minutes: -2, quantity: 1, status: .readyForPickup)
        let inProgress = Fixture.order(3, minutes: -1, quantity: 3, status: .finishing, stageStartedAt: harness.base)
        for order in [yesterday, pickedUp, inProgress] { harness.workshop.store(order) }
        #expect(harness.floor.currentOutput == WorkshopFloorOutput(updatedAt: harness.base))

        let running = harness.run()
        defer { running.cancel() }
        #expect(await settle { harness.floor.currentOutput.recentOrders.count == 3 })
        #expect(
            harness.floor.currentOutput
                == WorkshopFloorOutput(
                    recentOrders: [inProgress, pickedUp, yesterday], inProgress: [inProgress], guitarsOrderedToday: 4,
                    updatedAt: harness.base))
        #expect(harness.workshop.guitarsAskedSince == [WorkshopFloorState.startOfUTCDay(containing: harness.base)])
        #expect(harness.workshop.floorCounts.recentOrders == 1)
        #expect(harness.workshop.floorCounts.ordersInProgress == 1)
    }

    // MARK: - The stages, on time

    @Test(arguments: [ShippingMethod.express, .pickup])
    func aPlacedOrderGoesThroughEveryStageOnePerPace(shipping: ShippingMethod) async throws {
        let harness = Harness(pace: .demo)
        let running = harness.run()
        defer { running.cancel() }
        #expect(await settle { harness.workshop.floorCounts.nextStageChange >= 1 })

        let order = Fixture.order(1, minutes: 0, shipping: shipping)
        harness.workshop.store(order)
        await harness.floor.orderPlaced(order)
        let recorder = StageRecorder(floor: harness.floor, number: order.number)
        defer { recorder.stop() }
        #expect(await settle { recorder.recorded == [.woodSelection] })

        let stages = OrderStatus.stages(for: shipping)
        for (paces, stage) in stages.enumerated().dropFirst() {
            // A millisecond before the pace is over, nothing has moved…
            #expect(await harness.asleep())
            await harness.clock.advance(by: .milliseconds(9_999))
            #expect(!(await settle(until: { recorder.recorded.count > paces }, yields: 300)))
            #expect(harness.latest(order)?.status == stages[paces - 1])
            // …and when it is, the order moves exactly one stage.
            await harness.clock.advance(by: .milliseconds(1))
            #expect(await settle { recorder.recorded.count > paces })
            #expect(recorder.recorded == Array(stages.prefix(paces + 1)))
            #expect(harness.latest(order)?.status == stage)
            #expect(harness.latest(order)?.stageStartedAt == order.placedAt.addingTimeInterval(Double(paces) * 10))
            #expect(harness.floor.currentOutput.updatedAt == order.placedAt.addingTimeInterval(Double(paces) * 10))
        }
        #expect(recorder.recorded == stages)
        #expect(harness.workshop.moves.map(\.to) == Array(stages.dropFirst()))
        // Finished: off the board, still among the latest, and nothing more is due.
        #expect(harness.onBoard(order) == nil)
        #expect(harness.latest(order)?.status == stages.last)
        let calls = harness.workshop.floorCounts.advanceStages
        #expect(await harness.asleep())
        await harness.clock.advance(by: .seconds(3_600))
        #expect(!(await settle(until: { harness.workshop.floorCounts.advanceStages > calls }, yields: 300)))
        #expect(harness.workshop.moves.count == 4)
        #expect(harness.floor.currentOutput.guitarsOrderedToday == 1)
    }

    @Test func thePaceSetsHowLongAStageTakes() async throws {
        let harness = Harness(pace: WorkshopPace(perStage: .seconds(90)))
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        let running = harness.run()
        defer { running.cancel() }
        #expect(await settle { harness.onBoard(order) != nil })
        #expect(await harness.asleep())
        await harness.clock.advance(by: .seconds(89))
        #expect(!(await settle(until: { harness.onBoard(order)?.status != .woodSelection }, yields: 300)))
        await harness.clock.advance(by: .seconds(1))
        #expect(await settle { harness.onBoard(order)?.status == .bodyShaping })
        #expect(harness.onBoard(order)?.stageStartedAt == order.placedAt.addingTimeInterval(90))
        #expect(await harness.asleep())
        await harness.clock.advance(by: .seconds(90))
        #expect(await settle { harness.onBoard(order)?.status == .finishing })
    }

    @Test func aDayPerStageByDefault() async throws {
        let harness = Harness(pace: .days)
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        let running = harness.run()
        defer { running.cancel() }
        #expect(await settle { harness.onBoard(order) != nil })
        #expect(
            await advance(
                harness.clock, by: .seconds(3_600), until: { harness.onBoard(order)?.status != .woodSelection }))
        #expect(harness.onBoard(order)?.status == .bodyShaping)
        #expect(harness.onBoard(order)?.stageStartedAt == order.placedAt.addingTimeInterval(86_400))
        #expect(harness.workshop.moves.count == 1)
        // The floor woke at midnight on the way (today's count started again), and moved nothing then.
        #expect(harness.floor.currentOutput.guitarsOrderedToday == 0)
    }

    // MARK: - Waking

    @Test func aNewOrderWakesTheTimer() async throws {
        let harness = Harness(pace: .demo)
        let running = harness.run()
        defer { running.cancel() }
        // Nothing in progress: the floor sleeps with nothing due (until midnight, hours away).
        #expect(await settle { harness.workshop.floorCounts.nextStageChange >= 1 })
        #expect(await harness.asleep())
        await harness.clock.advance(by: .seconds(30))
        #expect(!(await settle(until: { harness.workshop.floorCounts.nextStageChange > 1 }, yields: 300)))

        let order = Fixture.order(1, minutes: 0.5)
        harness.workshop.store(order)
        await harness.floor.orderPlaced(order)
        // Shown at once, counted once, and the timer asks again when the next change is due.
        #expect(harness.floor.currentOutput.recentOrders == [order])
        #expect(harness.floor.currentOutput.inProgress == [order])
        #expect(harness.floor.currentOutput.guitarsOrderedToday == 1)
        #expect(await settle { harness.workshop.floorCounts.nextStageChange >= 2 })
        await harness.floor.orderPlaced(order)
        #expect(harness.floor.currentOutput.guitarsOrderedToday == 1)
        // Without the wake-up it would sleep past this; with it, the order moves on time.
        #expect(await harness.asleep())
        await harness.clock.advance(by: .seconds(10))
        #expect(await settle { harness.onBoard(order)?.status == .bodyShaping })
        #expect(harness.workshop.moves.count == 1)
    }

    @Test func anOrderPlacedBeforeTheFloorLoadedIsKeptAndCountedOnce() async throws {
        let harness = Harness()
        let order = Fixture.order(1, minutes: 0, quantity: 2)
        harness.workshop.store(order)
        await harness.floor.orderPlaced(order)
        #expect(harness.floor.currentOutput.guitarsOrderedToday == 2)
        let running = harness.run()
        defer { running.cancel() }
        #expect(await settle { harness.workshop.floorCounts.nextStageChange >= 1 })
        #expect(harness.floor.currentOutput.recentOrders == [order])
        #expect(harness.floor.currentOutput.guitarsOrderedToday == 2)
    }

    // MARK: - Restarts and errors

    @Test func aRestartedFloorResumesFromTheStoredStages() async throws {
        let harness = Harness(pace: .demo)
        // Stored by the server before: one order mid-stage, one stages behind (the server was down).
        let midStage = Fixture.order(
            1, minutes: -1, status: .finishing, stageStartedAt: harness.base.addingTimeInterval(-4))
        let behind = Fixture.order(
            2, minutes: -2, shipping: .pickup, status: .bodyShaping,
            stageStartedAt: harness.base.addingTimeInterval(-35))
        harness.workshop.store(midStage)
        harness.workshop.store(behind)
        let running = harness.run()
        defer { running.cancel() }

        // The order behind catches up at once, one stage per pass, none skipped, ending picked up.
        #expect(await settle { harness.latest(behind)?.status == .readyForPickup })
        #expect(
            harness.workshop.moves == [
                .init(number: behind.number, from: .bodyShaping, to: .finishing, startedAt: harness.base - 25),
                .init(number: behind.number, from: .finishing, to: .setup, startedAt: harness.base - 15),
                .init(number: behind.number, from: .setup, to: .readyForPickup, startedAt: harness.base - 5),
            ])
        #expect(harness.floor.currentOutput.inProgress.map(\.number) == [midStage.number])
        // The one mid-stage keeps its stage's start: it moves 6 s later, not a pace after the restart.
        #expect(await harness.asleep())
        await harness.clock.advance(by: .seconds(5))
        #expect(!(await settle(until: { harness.onBoard(midStage)?.status != .finishing }, yields: 300)))
        await harness.clock.advance(by: .seconds(1))
        #expect(await settle { harness.onBoard(midStage)?.status == .setup })
        #expect(harness.onBoard(midStage)?.stageStartedAt == harness.base.addingTimeInterval(6))
    }

    @Test func aDatabaseErrorIsRetriedAfterABoundedBackoff() async throws {
        let harness = Harness(pace: .demo)
        let order = Fixture.order(1, minutes: 0)
        harness.workshop.store(order)
        // The load's three calls fail, then one more call: the store is down for a while.
        harness.workshop.failFloorCalls(4)
        let running = harness.run()
        defer { running.cancel() }
        #expect(await settle { harness.workshop.floorCounts.recentOrders == 1 })
        #expect(harness.floor.currentOutput.recentOrders == [])
        // The first retry waits a second on the clock; the second, two.
        #expect(await harness.asleep())
        await harness.clock.advance(by: .milliseconds(999))
        #expect(!(await settle(until: { harness.workshop.floorCounts.recentOrders > 1 }, yields: 300)))
        await harness.clock.advance(by: .milliseconds(1))
        #expect(await settle { harness.workshop.floorCounts.recentOrders == 2 })
        #expect(await harness.asleep())
        await harness.clock.advance(by: .milliseconds(1_999))
        #expect(!(await settle(until: { harness.workshop.floorCounts.recentOrders > 2 }, yields: 300)))
        await harness.clock.advance(by: .milliseconds(1))
        #expect(await settle { harness.floor.currentOutput.recentOrders == [order] })
        // Loaded; the order still moves on time after the outage.
        #expect(await harness.asleep())
        await harness.clock.advance(by: .seconds(7))
        #expect(await settle { harness.onBoard(order)?.status == .bodyShaping })
        #expect(harness.onBoard(order)?.stageStartedAt == order.placedAt.addingTimeInterval(10))
    }

    @Test func theBackoffIsBounded() {
        #expect(WorkshopFloor.firstRetryDelay == .seconds(1))
        #expect(WorkshopFloor.longestRetryDelay == .seconds(60))
    }

    @Test func cancellingRunEndsItAndCloseEndsTheOutputs() async throws {
        let harness = Harness()
        let running = harness.run()
        #expect(await settle { harness.workshop.floorCounts.nextStageChange >= 1 })
        running.cancel()
        await running.value
        let outputs = harness.floor.outputs()
        #expect(harness.floor.subscriberCount == 1)
        harness.floor.close()
        var received = 0
        for await _ in outputs { received += 1 }
        #expect(received == 1)
        #expect(harness.floor.subscriberCount == 0)
    }
}
