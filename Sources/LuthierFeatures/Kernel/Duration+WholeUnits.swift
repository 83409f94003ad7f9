extension Duration {
    /// Whole nanoseconds, rounded toward zero: a time kept in one 64-bit word (a recorder's lease
    /// in an atomic, a kept step's instant), which holds 292 years.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
