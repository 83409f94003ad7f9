import LuthierDomain
import ServerMachinery

/// The pieces of each scarce wood one session and one client address may take over time
/// (`ScarceWoodRule.perCustomer` within its window): an order counts its pieces of each scarce wood
/// against both, or against neither.
struct ScarceWoodLimits: Sendable {
    let rule: ScarceWoodRule
    let perSession: RateLimiter
    let perClient: RateLimiter

    init(rule: ScarceWoodRule, clock: any Clock<Duration>) {
        self.rule = rule
        let counting = RateLimiter.Rule(limit: rule.perCustomer, window: rule.window)
        perSession = RateLimiter(rule: counting, clock: clock)
        perClient = RateLimiter(rule: counting, clock: clock)
    }

    /// What was taken, to give back when the order is not placed.
    struct Taken {
        let limits: ScarceWoodLimits
        var pieces: [(limiter: RateLimiter, key: String, at: Duration)] = []

        func giveBack() {
            for piece in pieces { piece.limiter.giveBack(piece.key, at: piece.at) }
        }
    }

    /// Counts the pieces `scarce` takes of each wood for the session and the client, or refuses
    /// them all with 429, naming the wood, the limit and when to try again.
    func take(_ scarce: [WoodNeed], session: String, client: String) throws(UserFacingError) -> Taken {
        var taken = Taken(limits: self)
        for need in scarce {
            for (limiter, who, key) in [
                (perSession, "this browser", session), (perClient, "this network address", client),
            ] {
                let keyed = "\(key)|\(need.wood.id)"
                for _ in 0..<need.count {
                    switch limiter.take(keyed) {
                    case .allowed(let at): taken.pieces.append((limiter, keyed, at))
                    case .refused(retryAfter: let wait):
                        taken.giveBack()
                        throw refusal(need.wood, who: who, wait: wait)
                    }
                }
            }
        }
        return taken
    }

    private func refusal(_ wood: StockedWood, who: String, wait: Duration) -> UserFacingError {
        let seconds = wait.retryAfterSeconds
        let hours = (seconds + 3_599) / 3_600
        return UserFacingError(
            .tooManyRequests,
            "Orders from \(who) have taken the most \(wood.stockName) one customer may while they are scarce: "
                + "\(rule.perCustomer) in \(rule.window.components.seconds / 3_600) hours. Please try again in "
                + (hours == 1 ? "an hour" : "\(hours) hours") + ", or contact the workshop.",
            retryAfter: seconds)
    }
}
