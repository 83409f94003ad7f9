import Foundation
import LuthierDomain

/// The one producer behind every kiosk screen: a `Store` of `KioskFeature`, and its output
/// computed once per state and shared by every kiosk (`SharedOutput`), so a thousand kiosks share
/// one computation and a kiosk that falls behind gets the latest output.
public final class KioskFeed: Sendable {
    public let store: Store<KioskFeature>
    private let shared: SharedOutput<KioskState, KioskOutput>

    /// The input every session tells of a builder's guitar, and the stream the feed reads it
    /// from. It keeps only the newest guitar, so telling it never waits (sessions call it on their
    /// hot path) and the throttle always shows the latest.
    public static func builderInput() -> (builds: AsyncStream<Guitar>, builderActed: @Sendable (Guitar) -> Void) {
        let (builds, input) = AsyncStream<Guitar>.makeStream(bufferingPolicy: .bufferingNewest(1))
        return (builds, { input.yield($0) })
    }

    /// - Parameters:
    ///   - floor: the workshop floor's output now; `floorOutputs` follows it from then on.
    ///   - counters: read at every tick (the live sessions and the guitars in their carts).
    ///   - feedback: for tests, as `Store`'s.
    public init(
        environment: LuthierEnvironment, floor: WorkshopFloorOutput,
        floorOutputs: @escaping @Sendable () -> WorkshopFloorOutputs, builds: AsyncStream<Guitar>,
        counters: @escaping @Sendable () -> KioskCounters,
        feedback: AsyncStream<(KioskFeature.Action, KioskState)>.Continuation? = nil
    ) {
        let state = KioskState(floor: floor, now: environment.now())
        store = Store(
            initialState: state,
            reducer: KioskFeature(
                clock: environment.clock, now: environment.now, builds: builds, floor: floorOutputs,
                counters: counters),
            feedback: feedback, tap: environment.taps.map { Tap($0, "kiosk") })
        shared = SharedOutput(initial: state, KioskOutput.init(state:))
    }

    /// The feed of `floor`.
    public convenience init(
        environment: LuthierEnvironment, floor: WorkshopFloor, builds: AsyncStream<Guitar>,
        counters: @escaping @Sendable () -> KioskCounters
    ) {
        self.init(
            environment: environment, floor: floor.currentOutput, floorOutputs: { floor.outputs() }, builds: builds,
            counters: counters)
    }

    /// Runs the feed until the task is cancelled (the shop's service), then ends it.
    public func run() async {
        await store.run(starting: .start)
    }

    public var currentOutput: KioskOutput { shared.output(for: store.state) }

    /// The current output, then every change (newest-wins per reader).
    public func outputs() -> SharedOutput<KioskState, KioskOutput>.Outputs { shared.outputs(of: store.states()) }

    public var subscriberCount: Int { store.subscriberCount }

    /// Returns once the number of readers meets `condition` (false if cancelled first).
    public func untilSubscribers(_ condition: @escaping @Sendable (Int) -> Bool) async -> Bool {
        await store.untilSubscribers(condition)
    }

    /// Ends the inputs' work and every reader's outputs (on shutdown).
    public func close() { store.close() }
}
