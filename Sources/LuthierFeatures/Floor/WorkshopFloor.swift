import Foundation
import LuthierDomain

/// The workshop floor's outputs as its readers take them: any stream of outputs, so that a test
/// can feed a screen that follows the floor by hand.
public typealias WorkshopFloorOutputs = any AsyncSequence<WorkshopFloorOutput, Never> & Sendable

/// The workshop floor: the one producer of the workshop's live state, a `Store` of
/// `WorkshopFloorFeature` whose output (`WorkshopFloorOutput`) every screen that follows the
/// workshop reads: the kiosk feed and each order page.
public final class WorkshopFloor: Sendable {
    public let store: Store<WorkshopFloorFeature>
    private let shared: SharedOutput<WorkshopFloorState, WorkshopFloorOutput>
    private let now: @Sendable () -> Date

    /// - Parameters:
    ///   - leadership: when this instance runs the stage timer (one of several on a database).
    ///   - feedback: for tests, as `Store`'s.
    public init(
        environment: LuthierEnvironment, pace: WorkshopPace, leadership: FloorLeadership = .always,
        feedback: AsyncStream<(WorkshopFloorFeature.Action, WorkshopFloorState)>.Continuation? = nil
    ) {
        let state = WorkshopFloorState(now: environment.now())
        store = Store(
            initialState: state,
            reducer: WorkshopFloorFeature(
                environment: environment, pace: pace, wake: WakeSignal(), leadership: leadership),
            feedback: feedback, tap: environment.taps.map { Tap($0, "floor") })
        shared = SharedOutput(initial: state, \.output)
        now = environment.now
    }

    /// An order the shop has just taken: it shows at once, and wakes the stage timer.
    public func orderPlaced(_ order: Order) {
        store.send(.placed(order, at: now()))
    }

    /// An order the shop's admin has just changed (cancelled, collected): every screen showing it
    /// shows the change at once (the board, the kiosk, its order page).
    public func orderChanged(_ order: Order) {
        store.send(.changed(order, at: now()))
    }

    /// Loads the floor, then moves the stages on time until the task is cancelled; then ends
    /// every reader's outputs.
    public func run() async {
        await store.run(starting: .start)
    }

    /// The floor as it is now.
    public var currentState: WorkshopFloorState { store.state }

    public var currentOutput: WorkshopFloorOutput { shared.output(for: store.state) }

    /// The current output, then every change (newest-wins per reader).
    public func outputs() -> WorkshopFloorOutputs { shared.outputs(of: store.states()) }

    /// How many readers follow the floor.
    public var subscriberCount: Int { store.subscriberCount }

    /// Returns once the number of readers meets `condition` (false if cancelled first).
    public func untilSubscribers(_ condition: @escaping @Sendable (Int) -> Bool) async -> Bool {
        await store.untilSubscribers(condition)
    }

    /// Ends the stage timer and every reader's outputs (on shutdown).
    public func close() { store.close() }
}
