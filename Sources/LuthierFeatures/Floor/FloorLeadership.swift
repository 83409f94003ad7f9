/// Whether this instance runs the workshop floor's stage timer: of several instances on one
/// database only one does (the leader), so the others do not query the workshop on every stage
/// for nothing. The floor waits `untilLeading` before each pass; a lone instance always leads.
///
/// Leadership saves work; it is not what keeps the stages right. Every pass moves what is due
/// under the workshop's lock, so two instances that both believed they led for a moment (a leader
/// cut off from the database until its connection is found dead) still move each stage once. And
/// each pass carries the ``FloorTerm`` it was granted under: the store refuses a pass of a term
/// that has ended, so the old leader moves nothing once another leads.
public struct FloorLeadership: Sendable {
    /// Returns once this instance leads (at once if it does), with the term it leads in; nil for
    /// an instance that leads alone, with no term to fence. Throws when cancelled.
    public var untilLeading: @Sendable () async throws -> FloorTerm?

    public init(untilLeading: @escaping @Sendable () async throws -> FloorTerm?) {
        self.untilLeading = untilLeading
    }

    /// A lone instance: it always leads, and has no term.
    public static let always = FloorLeadership(untilLeading: { nil })
}
