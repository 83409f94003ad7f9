import Benchmark
import Foundation
import LuthierDomain
import LuthierFeatures

/// What the workshop floor's store does for each order the shop takes, with few and with thousands
/// of orders in the workshop: the work per order should not grow with the backlog.
func floorBenchmarks() {
    for inProgress in [10, 4_000] {
        Benchmark(
            "WorkshopFloor: an order placed, then cancelled, \(inProgress) in progress",
            configuration: .floor
        ) { benchmark in
            let floor = WorkshopFloor(environment: .benchmark, pace: WorkshopPace(perStage: .seconds(60)))
            let orders = (0..<inProgress).map { ReducerInputs.order($0) }
            floor.store.send(
                .loaded(recentOrders: [], inProgress: orders, guitarsOrderedToday: 0, at: ReducerInputs.start))
            let at = ReducerInputs.start.addingTimeInterval(86_400)
            // Made before the measurement, which is of the floor alone.
            let placed = benchmark.scaledIterations.map { ReducerInputs.order(inProgress + $0) }
            let cancelled = placed.map { order in
                var order = order
                order.status = .cancelled
                return order
            }
            benchmark.startMeasurement()
            for (order, cancelled) in zip(placed, cancelled) {
                floor.store.send(.placed(order, at: at))
                floor.store.send(.changed(cancelled, at: at))
            }
            benchmark.stopMeasurement()
            blackHole(floor.currentState)
            floor.close()
        }
    }
}

extension Benchmark.Configuration {
    /// A thousand orders per sample, on one floor: the fold as it runs on a busy day, its caches
    /// warm, rather than one order right after the floor was loaded (`--scale` shows one order).
    static var floor: Benchmark.Configuration {
        var configuration = Benchmark.Configuration.micro
        configuration.scalingFactor = .kilo
        configuration.maxIterations = 200
        return configuration
    }
}

extension LuthierEnvironment {
    /// An environment whose services fail if called: the floor's fold calls none.
    static var benchmark: LuthierEnvironment {
        LuthierEnvironment(
            clock: ContinuousClock(), now: { ReducerInputs.start }, workshop: .failing(), exchangeRates: .failing(),
            sessions: .failing(), analytics: .failing(), makeID: { "benchmark" })
    }
}
