import Foundation
import LuthierDomain
import Synchronization

/// The workshop floor: the one producer of the workshop's live state. Orders move through their
/// stages on a timer, and every change is published as a `WorkshopFloorOutput` through a
/// `CurrentValueBroadcast`, for every screen that follows the workshop.
///
/// - `run()` loads the floor from the store, then loops: it advances the stages that are due (one
///   stage per order per pass; see `WorkshopClient.advanceStages`), asks when the next change is
///   due and sleeps until then on the injected clock (the `Timer.publish` of the workshop). The
///   stages are stored, so a restarted server resumes where it was; after downtime each pass
///   moves an order one more stage, at once, so no stage is skipped.
/// - `orderPlaced(_:)` adds an order as soon as the shop takes it, and wakes the timer.
/// - A database error is not fatal: the step is tried again after a delay that doubles up to
///   `longestRetryDelay`.
public actor WorkshopFloor {
    /// How long the floor waits before trying the store again after the first error.
    public static let firstRetryDelay = Duration.seconds(1)
    /// The longest the floor waits before trying the store again.
    public static let longestRetryDelay = Duration.seconds(60)

    private let environment: LuthierEnvironment
    private let pace: WorkshopPace
    private var state: WorkshopFloorState
    private let output: CurrentValueBroadcast<WorkshopFloorOutput>
    private let wake = WakeSignal()
    /// Orders placed before the floor was loaded, to apply again on top of what the store said
    /// (its read may have been made before they were written); nil once loaded. Only the newest
    /// are kept: a floor that is never run must not grow, and only the newest can be new.
    private var placedBeforeLoad: [Order]? = []
    private static let placedBeforeLoadLimit = 100

    public init(environment: LuthierEnvironment, pace: WorkshopPace) {
        self.environment = environment
        self.pace = pace
        let state = WorkshopFloorState(now: environment.now())
        self.state = state
        output = CurrentValueBroadcast(state.output)
    }

    /// An order the shop has just taken (or taken again: a repeat changes nothing). It shows at
    /// once, and the timer is woken, because its stage may be due before the one it sleeps for.
    public func orderPlaced(_ order: Order) {
        if placedBeforeLoad != nil {
            placedBeforeLoad?.append(order)
            if let count = placedBeforeLoad?.count, count > Self.placedBeforeLoadLimit {
                placedBeforeLoad?.removeFirst(count - Self.placedBeforeLoadLimit)
            }
        }
        apply(.placed(order, at: environment.now()))
        wake.signal()
    }

    /// Loads the floor, then moves the stages on time until the task is cancelled.
    public func run() async {
        guard await load() else { return }
        var retryDelay = Self.firstRetryDelay
        while !Task.isCancelled {
            do {
                let now = environment.now()
                let moved = try await environment.workshop.advanceStages(now, pace)
                // Applied even when nothing moved: past midnight, today's count starts again.
                apply(.advanced(moved, at: now))
                let due = try await environment.workshop.nextStageChange(pace)
                retryDelay = Self.firstRetryDelay
                await sleep(until: due, afterMoving: !moved.isEmpty)
            } catch {
                guard await pause(retryDelay) else { return }
                retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
            }
        }
    }

    /// The floor as it is now.
    public var currentState: WorkshopFloorState { state }

    public nonisolated var currentOutput: WorkshopFloorOutput { output.value }

    /// The current output, then every change (newest-wins per reader, no duplicates).
    public nonisolated func outputs() -> AsyncStream<WorkshopFloorOutput> { output.values() }

    /// How many readers follow the floor.
    public nonisolated var subscriberCount: Int { output.subscriberCount }

    /// Ends every reader's outputs (on shutdown); `run()` ends when its task is cancelled.
    public nonisolated func close() {
        output.finish()
    }

    // MARK: - Steps

    /// Reads the latest orders, the orders in progress and today's guitars, retrying after errors.
    /// False when cancelled first.
    private func load() async -> Bool {
        var retryDelay = Self.firstRetryDelay
        while !Task.isCancelled {
            let now = environment.now()
            let workshop = environment.workshop
            do {
                async let recent = workshop.recentOrders(WorkshopFloorState.recentLimit)
                async let inProgress = workshop.ordersInProgress()
                async let guitars = workshop.guitarsOrdered(WorkshopFloorState.startOfUTCDay(containing: now))
                let loaded = try await (recent: recent, inProgress: inProgress, guitars: guitars)
                apply(
                    .loaded(
                        recentOrders: loaded.recent, inProgress: loaded.inProgress,
                        guitarsOrderedToday: loaded.guitars, at: now))
                for order in placedBeforeLoad ?? [] { apply(.placed(order, at: environment.now())) }
                placedBeforeLoad = nil
                return true
            } catch {
                guard await pause(retryDelay) else { return false }
                retryDelay = min(retryDelay * 2, Self.longestRetryDelay)
            }
        }
        return false
    }

    private func apply(_ event: WorkshopFloorState.Event) {
        state = WorkshopFloorState.reduce(state, event)
        output.send(state.output)
    }

    /// Sleeps until `due` (none: until woken) or the next midnight UTC (when today's count starts
    /// again), whichever comes first, unless a new order wakes it sooner.
    ///
    /// A change already due is taken at once. If it was due and nothing moved (the store and this
    /// clock disagree by less than a millisecond), the floor waits a millisecond rather than spin.
    private func sleep(until due: Date?, afterMoving moved: Bool) async {
        let now = environment.now()
        let midnight = Self.duration(from: now, to: state.today.addingTimeInterval(86_400))
        var wait = midnight
        if let due {
            let untilDue = Self.duration(from: now, to: due)
            wait = min(wait, untilDue == .zero && !moved ? .milliseconds(1) : untilDue)
        }
        guard wait > .zero else { return }
        // The deadline is fixed on the clock right where `now` was read, so that however long the
        // sleep takes to begin, it ends when the change is due.
        await wake.wait(until: alarm(on: environment.clock, after: wait))
    }

    /// Waits `delay` on the clock; false when cancelled.
    private func pause(_ delay: Duration) async -> Bool {
        do {
            try await environment.clock.sleep(for: delay)
            return true
        } catch {
            return false
        }
    }

    /// From `now` to `date` in whole milliseconds (the store's unit), rounded; zero if past.
    static func duration(from now: Date, to date: Date) -> Duration {
        let milliseconds = (date.timeIntervalSince(now) * 1_000).rounded()
        return milliseconds > 0 ? .milliseconds(Int64(milliseconds)) : .zero
    }
}

/// A wake-up call that is never lost: a signal given while nobody waits is kept for the next wait.
final class WakeSignal: Sendable {
    private struct State {
        var isPending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next one.
    func signal() {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.isPending = true
                return nil as CheckedContinuation<Void, Never>?
            }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when signalled (or at once for a signal given since the last wait), when `alarm`
    /// returns, or when the task is cancelled.
    func wait(until alarm: @escaping @Sendable () async throws -> Void) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await alarm()
                    self.signal()
                } catch {}
            }
            await self.wait()
            group.cancelAll()
        }
    }

    private func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.isPending || Task.isCancelled {
                        state.isPending = false
                        return true
                    }
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
