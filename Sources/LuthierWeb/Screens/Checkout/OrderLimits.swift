import ServerMachinery

/// The two order limits, per session and per client address, taken together: an order counts
/// against both or neither.
struct OrderLimits: Sendable {
    let perSession: RateLimiter
    let perClient: RateLimiter

    /// What was taken, to give back when the order is not placed.
    struct Taken {
        let limits: OrderLimits
        let session: String
        let client: String
        let sessionInstant: Duration
        let clientInstant: Duration

        func giveBack() {
            limits.perSession.giveBack(session, at: sessionInstant)
            limits.perClient.giveBack(client, at: clientInstant)
        }
    }

    /// Counts one order for the session and the client, or refuses it with 429, the limit in
    /// words and when to try again.
    func take(session: String, client: String) throws(UserFacingError) -> Taken {
        let sessionInstant: Duration
        switch perSession.take(session) {
        case .allowed(let at): sessionInstant = at
        case .refused(let wait):
            throw Self.refusal(rule: perSession.rule, wait: wait, who: "this browser")
        }
        switch perClient.take(client) {
        case .allowed(let at):
            return Taken(
                limits: self, session: session, client: client, sessionInstant: sessionInstant, clientInstant: at)
        case .refused(let wait):
            perSession.giveBack(session, at: sessionInstant)
            throw Self.refusal(rule: perClient.rule, wait: wait, who: "this network address")
        }
    }

    static func refusal(rule: RateLimiter.Rule, wait: Duration, who: String) -> UserFacingError {
        let seconds = wait.retryAfterSeconds
        let minutes = (seconds + 59) / 60
        let window = rule.window == .seconds(3_600) ? "an hour" : "in \(rule.window.components.seconds) seconds"
        return UserFacingError(
            .tooManyRequests,
            "Too many orders from \(who): at most \(rule.limit) \(window). Please try again in "
                + (minutes == 1 ? "a minute" : "\(minutes) minutes") + ", or contact the workshop.",
            retryAfter: seconds)
    }
}
