/// Why the workshop refused an order.
public enum OrderError: Error, Hashable, Sendable {
    /// A wood ran out between checkout and ordering.
    case unavailable(missing: [String])

    public var message: String {
        switch self {
        case .unavailable(let missing):
            "Sorry, this order just became unavailable: we are out of \(missing.joined(separator: " and ")). Nothing was ordered."
        }
    }
}
