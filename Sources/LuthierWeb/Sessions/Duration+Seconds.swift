import Foundation

extension Duration {
    /// The duration in seconds, for `Date` arithmetic.
    var seconds: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Whole seconds, rounded up (at least 1): what a `Retry-After` header says.
    var retryAfterSeconds: Int {
        let (seconds, attoseconds) = components
        return max(Int(seconds) + (attoseconds > 0 ? 1 : 0), 1)
    }
}
