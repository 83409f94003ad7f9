/// How long the workshop expects a build to take.
public struct BuildEstimate: Hashable, Sendable, Codable {
    public var months: Int

    public init(months: Int) {
        self.months = months
    }

    /// "About 3 months" ("About 1 month" for one).
    public var label: String { months == 1 ? "About 1 month" : "About \(months) months" }
}
