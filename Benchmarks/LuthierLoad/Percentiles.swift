/// Exact percentiles of a set of durations, by sorting (the runs are small enough).
///
/// Nearest rank: the p-th percentile is the smallest sample with at least p of them at or below.
struct Percentiles {
    private let sorted: [Duration]

    init(_ samples: [Duration]) {
        sorted = samples.sorted()
    }

    var count: Int { sorted.count }
    var max: Duration? { sorted.last }

    func value(_ fraction: Double) -> Duration? {
        guard !sorted.isEmpty else { return nil }
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[Swift.min(Swift.max(rank, 1), sorted.count) - 1]
    }

    /// "p50 1.2 ms · p99 …" for the given fractions, plus the maximum.
    func summary(_ fractions: [(String, Double)]) -> String {
        guard count > 0 else { return "no samples" }
        var parts = fractions.map { label, fraction in "\(label) \(Report.milliseconds(value(fraction)))" }
        parts.append("max \(Report.milliseconds(max))")
        return parts.joined(separator: "  ")
    }
}
