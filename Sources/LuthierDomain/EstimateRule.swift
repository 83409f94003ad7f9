/// How the workshop estimates a build, from its backlog and the chosen woods, without a database.
///
/// The rule, with the standard values:
///
///     months = baseMonths                                    // 2: building and finishing
///            + ceil(openOrders / ordersPerExtraMonth)        // +1 per started 10 open orders
///            + (scarcityMonths if body or fretboard stock ≤ scarceAtOrBelow)  // +1 if ≤ 5 left
///
/// So an empty workshop quotes 2 months, the 1st–10th open orders add a month, the 11th–20th
/// another; choosing a scarce wood (Black Limba, for example, with the seeded stock) adds one
/// more, because the workshop must source it. It is deterministic so that the estimate can be
/// tested and explained, unlike the original app's random one.
public struct EstimateRule: Hashable, Sendable {
    /// The months any build takes with nothing ahead of it.
    public var baseMonths: Int
    /// Every started block of this many open orders adds a month.
    public var ordersPerExtraMonth: Int
    /// A wood with this many pieces or fewer left counts as scarce.
    public var scarceAtOrBelow: Int
    /// What a scarce body or fretboard wood adds (once, even if both are scarce).
    public var scarcityMonths: Int

    public init(baseMonths: Int = 2, ordersPerExtraMonth: Int = 10, scarceAtOrBelow: Int = 5, scarcityMonths: Int = 1) {
        self.baseMonths = baseMonths
        self.ordersPerExtraMonth = max(1, ordersPerExtraMonth)
        self.scarceAtOrBelow = scarceAtOrBelow
        self.scarcityMonths = scarcityMonths
    }

    /// The workshop's rule: 2 months + 1 per started 10 open orders + 1 if a chosen wood has ≤ 5 left.
    public static let standard = EstimateRule()

    /// The estimate for a build given the open orders ahead of it and the stock of its two woods.
    public func estimate(openOrders: Int, bodyStock: Int, fretboardStock: Int) -> BuildEstimate {
        let backlog = max(0, openOrders)
        let backlogMonths = (backlog + ordersPerExtraMonth - 1) / ordersPerExtraMonth
        let isScarce = bodyStock <= scarceAtOrBelow || fretboardStock <= scarceAtOrBelow
        return BuildEstimate(months: baseMonths + backlogMonths + (isScarce ? scarcityMonths : 0))
    }
}
