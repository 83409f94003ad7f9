/// Something another instance of the shop did to an order, as PostgreSQL's `NOTIFY` carries it
/// between instances: only the order's number and what happened, so that each instance reads the
/// order as stored rather than trusting a copy.
public enum WorkshopChange: Hashable, Sendable {
    /// The reader follows the changes from now on. Told when listening starts and again after a
    /// lost connection is back: whatever happened before may have been missed, so the reader
    /// reads the workshop again.
    case listening
    /// The order was placed.
    case placed(number: String)
    /// The order moved on one stage.
    case advanced(number: String)
    /// The shop's admin changed the order (cancelled, collected).
    case changed(number: String)

    /// The order it is about (none for `listening`).
    public var number: String? {
        switch self {
        case .listening: nil
        case .placed(let number), .advanced(let number), .changed(let number): number
        }
    }

    /// The change as a notification's payload: `placed:LU-7K3M9Q` (`listening` is never sent).
    public var payload: String {
        switch self {
        case .listening: "listening:"
        case .placed(let number): "placed:\(number)"
        case .advanced(let number): "advanced:\(number)"
        case .changed(let number): "changed:\(number)"
        }
    }

    /// Reads a payload; nil for anything this version does not know (a newer instance's kind of
    /// change, or noise on the channel), which a reader skips.
    public init?(payload: String) {
        guard let colon = payload.firstIndex(of: ":") else { return nil }
        let number = String(payload[payload.index(after: colon)...])
        guard !number.isEmpty, number.count <= 32 else { return nil }
        switch payload[..<colon] {
        case "placed": self = .placed(number: number)
        case "advanced": self = .advanced(number: number)
        case "changed": self = .changed(number: number)
        default: return nil
        }
    }
}
