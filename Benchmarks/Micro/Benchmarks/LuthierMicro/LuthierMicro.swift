import Benchmark

/// Every micro-benchmark of the target; the generated runner calls this once to register them.
///
/// Each group guards a hot spot named by the performance issue: the pages and fragments every change
/// renders, the reducers every input folds through, the gzip path of the static assets, and the `patch`
/// event every open tab receives.
let benchmarks: @Sendable () -> Void = {
    renderingBenchmarks()
    reducerBenchmarks()
    staticAssetBenchmarks()
    eventStreamBenchmarks()
    listEditBenchmarks()
    floorBenchmarks()
}

extension Benchmark.Configuration {
    /// Short, bounded runs: the whole suite should finish in a few minutes on a 2-core machine, and
    /// wall-clock time and allocations are the two numbers the issue asks to guard.
    static var micro: Benchmark.Configuration {
        Benchmark.Configuration(
            metrics: [.wallClock, .mallocCountTotal],
            warmupIterations: 10,
            maxDuration: .seconds(1),
            maxIterations: 2_000
        )
    }
}
