/// Waits, in real time, until `condition` holds: for what happens on other threads (a request reaching
/// the local provider, a thousand asks joining one fetch). Fails the wait after `limit`.
func waitUntil(
    _ what: String,
    limit: Duration = .seconds(5),
    _ condition: @Sendable () async -> Bool
) async throws {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: limit)
    while await !condition() {
        guard clock.now < deadline else { throw WaitTimedOut(what: what) }
        try await clock.sleep(for: .milliseconds(2))
    }
}

struct WaitTimedOut: Error, CustomStringConvertible {
    var what: String
    var description: String { "gave up waiting until \(what)" }
}
