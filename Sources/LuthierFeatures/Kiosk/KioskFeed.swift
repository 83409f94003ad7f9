import Foundation
import LuthierDomain
import Synchronization

/// The one producer behind every kiosk screen: it folds builders' guitars, the workshop floor and
/// a timer into `KioskState`, and publishes `KioskOutput` through a `CurrentValueBroadcast`, so
/// a thousand kiosks share one computation and a kiosk that falls behind gets the latest state.
///
/// - Builders' guitars arrive from every session through `builderActed(_:)` into a buffer that
///   keeps only the newest. The pipeline shows one, then waits `throttleInterval` on the injected
///   clock before taking the next: at most two a second, and the latest is always shown (it is
///   what the buffer holds when the wait ends).
/// - The timer ticks every `tickInterval`: it keeps "2 min ago" and the counters current, and
///   after `quietTicks` ticks without a builder it runs the attract loop, one configuration per
///   tick, until a builder acts.
public actor KioskFeed {
    public static let throttleInterval = Duration.milliseconds(500)
    public static let tickInterval = Duration.seconds(5)
    /// A quiet minute.
    public static let quietTicks = 12

    private var state: KioskState
    private let output: CurrentValueBroadcast<KioskOutput>
    private let environment: LuthierEnvironment
    private let builds: AsyncStream<Guitar>
    private let buildInput: AsyncStream<Guitar>.Continuation

    public init(environment: LuthierEnvironment, floor: WorkshopFloorOutput) {
        self.environment = environment
        let state = KioskState(floor: floor, now: environment.now())
        self.state = state
        output = CurrentValueBroadcast(KioskOutput(state: state))
        (builds, buildInput) = AsyncStream<Guitar>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// A builder in any session changed their guitar. Never waits: sessions call it on their
    /// hot path, and only the newest guitar matters.
    public nonisolated func builderActed(_ guitar: Guitar) {
        buildInput.yield(guitar)
    }

    /// Runs the pipelines until cancelled: builders (throttled), the floor's outputs, and the
    /// timer, which reads the counters from `counters` on each tick.
    public func run(
        floor: AsyncStream<WorkshopFloorOutput>,
        counters: @escaping @Sendable () -> KioskCounters
    ) async {
        await withDiscardingTaskGroup { group in
            group.addTask {
                for await floorOutput in floor { await self.apply(.floor(floorOutput)) }
            }
            group.addTask {
                while !Task.isCancelled {
                    do {
                        try await self.environment.clock.sleep(for: Self.tickInterval)
                    } catch {
                        return
                    }
                    await self.apply(.tick(now: self.environment.now(), counters: counters()))
                }
            }
            group.addTask {
                for await guitar in self.builds {
                    await self.apply(.built(guitar))
                    do {
                        try await self.environment.clock.sleep(for: Self.throttleInterval)
                    } catch {
                        return
                    }
                }
            }
        }
    }

    private func apply(_ event: KioskState.Event) {
        state = KioskState.reduce(state, event)
        output.send(KioskOutput(state: state))
    }

    public var currentState: KioskState { state }

    public nonisolated var currentOutput: KioskOutput { output.value }

    public nonisolated func outputs() -> AsyncStream<KioskOutput> { output.values() }

    public nonisolated var subscriberCount: Int { output.subscriberCount }

    public nonisolated func close() {
        buildInput.finish()
        output.finish()
    }
}
