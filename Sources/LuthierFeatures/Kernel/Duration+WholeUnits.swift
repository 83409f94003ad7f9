extension Duration {
    /// Whole milliseconds, rounded toward zero: a trace's instants and the inspector's, and the
    /// bounds told to PostgreSQL.
    public var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }

    /// Whole nanoseconds, rounded toward zero: a time kept in one 64-bit word (a recorder's lease
    /// in an atomic, a kept step's instant), which holds 292 years.
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
