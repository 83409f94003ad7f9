extension Double {
    /// The number with at most one decimal and no exponent, independent of locale.
    ///
    /// Path data is compared byte for byte (caching, ETags, tests), so the artwork never goes through
    /// `String(describing:)` or a formatter whose output could change with the platform or locale.
    var svg: String {
        guard isFinite else { return "0" }
        let tenths = Int((self * 10).rounded())
        let magnitude = tenths.magnitude
        let sign = tenths < 0 ? "-" : ""
        let whole = magnitude / 10
        let fraction = magnitude % 10
        return fraction == 0 ? "\(sign)\(whole)" : "\(sign)\(whole).\(fraction)"
    }
}
