/// The term in which an instance leads the workshop floor: a number the database raises each time
/// an instance takes the lead, so every later leader holds a larger one.
///
/// A pass carries the term it was granted under, and the store moves nothing for a term that has
/// ended (a fencing token). So a leader cut off from the database, whose statements arrive only
/// when its link comes back, long after another instance took the lead, moves no stage: the
/// database, not the old leader's belief, says who leads.
public struct FloorTerm: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let number: Int64

    public init(_ number: Int64) { self.number = number }

    public static func < (lhs: FloorTerm, rhs: FloorTerm) -> Bool { lhs.number < rhs.number }

    public var description: String { "term \(number)" }
}
