extension Clock where Duration == Swift.Duration {
    /// The time since now on this clock, each time it is called: what a limiter or a log line
    /// measures on an injected clock (virtual in tests), whatever kind of clock it is.
    func elapsedSinceNow() -> @Sendable () -> Duration {
        let start = now
        return { start.duration(to: self.now) }
    }
}
