import Foundation
import LuthierDomain

/// The kiosk as a reducer: the shop-wide screen that folds three inputs into `KioskState`.
///
/// Read `.start` as the seeds would write the kiosk's view model:
///
///     builds.throttle(for: 0.5, latest: true).map(.built)
///         .merge(with: floor.map(.floor))
///         .merge(with: Timer.publish(every: 5).map { .tick(now, counters) })
///         .scan(state, KioskState.reduce)
///
/// - builders' guitars come from every session through an input that keeps only the newest, and
///   are throttled: one at once, then at most one per `throttleInterval`, always the latest;
/// - the workshop floor's outputs replace the orders and the board as they come;
/// - the timer keeps "2 min ago" and the counters current, and after `quietTicks` ticks without a
///   builder it runs the attract loop, one configuration per tick.
public struct KioskFeature: Reducer {
    public typealias State = KioskState

    public static let throttleInterval = Duration.milliseconds(500)
    public static let tickInterval = Duration.seconds(5)
    /// A quiet minute.
    public static let quietTicks = 12

    public enum Action: Hashable, Sendable {
        /// Subscribes to the inputs and starts the timer (once, when the shop starts).
        case start
        /// A builder's guitar, after the throttle.
        case built(Guitar)
        /// The timer's tick, with the time and the counters as they are then.
        case tick(now: Date, counters: KioskCounters)
        case floor(WorkshopFloorOutput)
    }

    let clock: any Clock<Duration>
    let now: @Sendable () -> Date
    /// The builders' guitars: an input keeping only its newest (see `KioskFeed.builderInput()`).
    let builds: AsyncStream<Guitar>
    let floor: @Sendable () -> WorkshopFloorOutputs
    let counters: @Sendable () -> KioskCounters

    public init(
        clock: any Clock<Duration>, now: @escaping @Sendable () -> Date, builds: AsyncStream<Guitar>,
        floor: @escaping @Sendable () -> WorkshopFloorOutputs,
        counters: @escaping @Sendable () -> KioskCounters
    ) {
        self.clock = clock
        self.now = now
        self.builds = builds
        self.floor = floor
        self.counters = counters
    }

    public func reduce(into state: inout KioskState, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            let now = now
            let counters = counters
            return .merge(
                .throttle(builds, for: Self.throttleInterval, clock: clock) { .built($0) },
                .forEach(floor()) { .floor($0) },
                .timer(every: Self.tickInterval, clock: clock) { .tick(now: now(), counters: counters()) })
        case .built(let guitar):
            state = KioskState.reduce(state, .built(guitar))
        case .tick(let now, let counters):
            state = KioskState.reduce(state, .tick(now: now, counters: counters))
        case .floor(let floor):
            state = KioskState.reduce(state, .floor(floor))
        }
        return .none
    }
}
