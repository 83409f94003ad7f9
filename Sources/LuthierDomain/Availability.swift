/// Whether the workshop can build a guitar now, and if not, why.
public enum Availability: Hashable, Sendable, Codable {
    case available
    /// The named woods are out of stock.
    case unavailable(missing: [String])

    public var isAvailable: Bool { self == .available }

    /// "Available" / "Currently unavailable", as the checkout page reads.
    public var label: String { isAvailable ? "Available" : "Currently unavailable" }
}
