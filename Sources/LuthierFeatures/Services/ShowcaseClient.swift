import LuthierDomain

/// The builders of the shop's other instances, for the kiosk's showcase: "the guitar being built
/// now" is the whole shop's, whichever instance the customer's posts reach. A struct of closures,
/// so that PostgreSQL's `NOTIFY` and a test's fake are just values; a lone instance has none.
public struct ShowcaseClient: Sendable {
    /// Tells the other instances that a customer here is building `guitar`.
    public var announce: @Sendable (_ guitar: Guitar) async throws -> Void
    /// The guitars customers build on the other instances, as they are announced, for as long as
    /// the stream is read (this instance's own are not told back).
    public var builtElsewhere: @Sendable () -> AsyncStream<Guitar>

    public init(
        announce: @escaping @Sendable (_ guitar: Guitar) async throws -> Void,
        builtElsewhere: @escaping @Sendable () -> AsyncStream<Guitar>
    ) {
        self.announce = announce
        self.builtElsewhere = builtElsewhere
    }
}
