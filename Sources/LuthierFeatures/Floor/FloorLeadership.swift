/// Whether this instance runs the workshop floor's stage timer: of several instances on one
/// database only one does (the leader), so the others do not query the workshop on every stage
/// for nothing. The floor waits `untilLeading` before each pass; a lone instance always leads.
///
/// Leadership saves work; it is not what keeps the stages right. Every pass moves what is due
/// under the workshop's lock, so two instances that both believed they led for a moment (a leader
/// cut off from the database until its connection is found dead) still move each stage once.
public struct FloorLeadership: Sendable {
    /// Returns once this instance leads (at once if it does); throws when cancelled.
    public var untilLeading: @Sendable () async throws -> Void

    public init(untilLeading: @escaping @Sendable () async throws -> Void) {
        self.untilLeading = untilLeading
    }

    /// A lone instance: it always leads.
    public static let always = FloorLeadership(untilLeading: {})
}
