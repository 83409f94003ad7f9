import Foundation
import LuthierDomain

/// The workshop floor as a reducer: the fold of what the store says and the orders the shop takes
/// (`WorkshopFloorState.reduce`, the `scan`), driven by one effect, the stage timer.
///
/// The stage timer is the workshop's `Timer.publish`, except that its next tick is not a fixed
/// period: it loads the floor from the store, then loops: it advances the stages that are due
/// (one stage per order per pass; see `WorkshopClient.advanceStages`), asks when the next change
/// is due and sleeps until then on the injected clock, or until an order placed wakes it (its
/// stage may be due before the one it sleeps for). The stages are stored, so a restarted server
/// resumes where it was; after downtime each pass moves an order one more stage, at once, so no
/// stage is skipped. A database error is not fatal: the step is tried again after a delay that
/// doubles up to `longestRetryDelay` (the seeds' `retry` with a backoff, and `catch`).
///
/// What the timer learns comes back as actions (`loaded`, `advanced`, `retrying`), so a test
/// receives each pass in order, and each is sent only once the timer's next wake-up is fixed on
/// the clock: a test that receives it and then advances the clock wakes it exactly.
public struct WorkshopFloorFeature: Reducer {
    public typealias State = WorkshopFloorState

    /// How long the floor waits before trying the store again after the first error.
    public static let firstRetryDelay = Duration.seconds(1)
    /// The longest the floor waits before trying the store again.
    public static let longestRetryDelay = Duration.seconds(60)

    public enum Action: Hashable, Sendable {
        /// Starts the stage timer (once, when the shop starts).
        case start
        /// The floor as the store has it.
        case loaded(recentOrders: [Order], inProgress: [Order], guitarsOrderedToday: Int, at: Date)
        /// An order the shop has just taken (or taken again: a repeat changes nothing).
        case placed(Order, at: Date)
        /// An order the shop's admin changed (cancelled, collected), as stored now.
        case changed(Order, at: Date)
        /// A pass of the timer: the orders that moved on (none: the pass still turns the day).
        case advanced([Order], at: Date)
        /// The store failed; the timer tries again after `after`.
        case retrying(after: Duration)
    }

    let environment: LuthierEnvironment
    let pace: WorkshopPace
    /// The timer's input from placed orders.
    let wake: WakeSignal
    /// When this instance runs the timer's passes (the others follow the leader's moves).
    var leadership: FloorLeadership = .always

    public func reduce(into state: inout WorkshopFloorState, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            return .merge(.run { send in await stageTimer(send) }, .run { send in await followElsewhere(send) })
        case .loaded(let recent, let inProgress, let guitars, let at):
            // The orders known before the load were placed while the store was being read, which
            // may have been before they were written: they are applied again on top of it.
            let placedBefore = state.inProgress
            state.apply(.loaded(recentOrders: recent, inProgress: inProgress, guitarsOrderedToday: guitars, at: at))
            for order in placedBefore { state.apply(.placed(order, at: at)) }
            return .none
        case .placed(let order, let at):
            state.apply(.placed(order, at: at))
            // Its stage may be due before the pass the timer sleeps for; if not, that pass finds it.
            let (wake, due) = (wake, pace.stageEnds(startedAt: order.stageStartedAt))
            return .run { _ in wake.signal(dueAt: due) }
        case .advanced(let moved, let at):
            state.apply(.advanced(moved, at: at))
            return .none
        case .changed(let order, let at):
            // A cancelled order may have been the one the timer sleeps for; waking it early only
            // makes it ask the store again.
            state.apply(.changed(order, at: at))
            let wake = wake
            return .run { _ in wake.signal() }
        case .retrying:
            return .none
        }
    }

    // MARK: - Other instances

    /// Follows what other instances of the shop do to orders (`WorkshopClient.changesElsewhere`):
    /// each change is read from the store as it stands and told as if it had happened here. A
    /// change this instance made itself is not told (it was told here as it was made), and would
    /// change nothing if it were (the fold knows the order already). When the changes start to be followed (again, after a lost connection),
    /// the floor is read anew, since changes in between were not told. An order that cannot be
    /// read now is skipped: its next change, or the next load, shows it.
    private func followElsewhere(_ send: Send<Action>) async {
        for await change in environment.workshop.changesElsewhere() {
            guard let number = change.number else {
                try? await load(send)
                continue
            }
            guard let order = try? await environment.workshop.order(number) else { continue }
            let now = environment.now()
            switch change {
            case .listening: break
            case .placed: send(.placed(order, at: now))
            case .advanced: send(.advanced([order], at: now))
            case .changed: send(.changed(order, at: now))
            }
        }
    }

    // MARK: - The stage timer

    private func stageTimer(_ send: Send<Action>) async {
        guard await retrying(send, { try await load(send) }) else { return }
        while !Task.isCancelled {
            var nextWake: NextWake?
            let passed = await retrying(send) {
                // Another instance may lead: its moves reach this floor as changes elsewhere. Asked
                // again before every try: a pass refused because its term ended waits for the lead.
                let term = try await leadership.untilLeading()
                nextWake = try await pass(send, in: term)
            }
            guard passed else { return }
            if let nextWake { await wake.wait(until: nextWake.alarm, alarmAt: nextWake.at) }
        }
    }

    /// Reads the latest orders, the orders in progress and today's guitars.
    private func load(_ send: Send<Action>) async throws {
        let now = environment.now()
        let workshop = environment.workshop
        async let recent = workshop.recentOrders(WorkshopFloorState.recentLimit)
        async let inProgress = workshop.ordersInProgress()
        async let guitars = workshop.guitarsOrdered(WorkshopFloorState.startOfUTCDay(containing: now))
        let loaded = try await (recent: recent, inProgress: inProgress, guitars: guitars)
        send(
            .loaded(
                recentOrders: loaded.recent, inProgress: loaded.inProgress, guitarsOrderedToday: loaded.guitars,
                at: now))
    }

    /// The stage timer's next wake-up: its alarm, and when that rings.
    private struct NextWake {
        let alarm: @Sendable () async throws -> Void
        let at: Date
    }

    /// One pass: moves what is due, and returns the wake-up for the next change (nil: none, go on
    /// at once), fixed on the clock before the pass is told.
    private func pass(_ send: Send<Action>, in term: FloorTerm?) async throws -> NextWake? {
        let now = environment.now()
        let moved = try await environment.workshop.advanceStages(now, pace, term)
        let due = try await environment.workshop.nextStageChange(pace)
        let asked = environment.now()
        let wait = Self.wait(from: asked, until: due, afterMoving: !moved.isEmpty)
        let nextWake =
            wait > .zero
            ? NextWake(
                alarm: alarm(on: environment.clock, after: wait),
                // The wait is in whole milliseconds (``duration(from:to:)``).
                at: asked.addingTimeInterval(Double(wait.milliseconds) / 1_000))
            : nil
        // Told even when nothing moved: past midnight, today's count starts again.
        send(.advanced(moved, at: now))
        return nextWake
    }

    /// Runs `step` until it succeeds, waiting after each failure; false when cancelled first.
    private func retrying(_ send: Send<Action>, _ step: () async throws -> Void) async -> Bool {
        var delay = Self.firstRetryDelay
        while !Task.isCancelled {
            do {
                try await step()
                return true
            } catch {
                // Cancelled (the shop stops): nothing failed, and nothing is retried.
                if Task.isCancelled { return false }
                let retry = alarm(on: environment.clock, after: delay)
                send(.retrying(after: delay))
                do {
                    try await retry()
                } catch {
                    return false
                }
                delay = min(delay * 2, Self.longestRetryDelay)
            }
        }
        return false
    }

    /// How long to sleep after a pass at `now`: until `due` (none: nothing in progress) or the next
    /// midnight UTC (when today's count starts again), whichever comes first.
    ///
    /// A change already due is taken at once. If it was due and nothing moved (the store and this
    /// clock disagree by less than a millisecond), the floor waits a millisecond rather than spin.
    static func wait(from now: Date, until due: Date?, afterMoving moved: Bool) -> Duration {
        let midnight = WorkshopFloorState.startOfUTCDay(containing: now).addingTimeInterval(86_400)
        var wait = duration(from: now, to: midnight)
        if let due {
            let untilDue = duration(from: now, to: due)
            wait = min(wait, untilDue == .zero && !moved ? .milliseconds(1) : untilDue)
        }
        return wait
    }

    /// From `now` to `date` in whole milliseconds (the store's unit), rounded; zero if past.
    static func duration(from now: Date, to date: Date) -> Duration {
        let milliseconds = (date.timeIntervalSince(now) * 1_000).rounded()
        return milliseconds > 0 ? .milliseconds(Int64(milliseconds)) : .zero
    }
}
