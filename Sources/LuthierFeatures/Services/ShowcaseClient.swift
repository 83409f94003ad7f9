import LuthierDomain

/// The shop's other instances as the kiosk shows them: "the guitar being built now" and the
/// counters are the whole shop's, whichever instance the customer's posts reach. A struct of
/// closures, so that PostgreSQL's `NOTIFY` and a test's fake are just values; a lone instance has
/// none.
public struct ShowcaseClient: Sendable {
    /// Tells the other instances that a customer here is building `guitar`.
    public var announce: @Sendable (_ guitar: Guitar) async throws -> Void
    /// The guitars customers build on the other instances, as they are announced, for as long as
    /// the stream is read (this instance's own are not told back).
    public var builtElsewhere: @Sendable () -> AsyncStream<Guitar>
    /// Tells the other instances this one's counters (its sessions and the guitars in their carts).
    public var announceCounters: @Sendable (_ counters: KioskCounters) async throws -> Void
    /// The counters the other instances announce, each with the instance's name, for as long as
    /// the stream is read (this instance's own are not told back).
    public var countersElsewhere: @Sendable () -> AsyncStream<InstanceCounters>

    public init(
        announce: @escaping @Sendable (_ guitar: Guitar) async throws -> Void,
        builtElsewhere: @escaping @Sendable () -> AsyncStream<Guitar>,
        announceCounters: @escaping @Sendable (_ counters: KioskCounters) async throws -> Void,
        countersElsewhere: @escaping @Sendable () -> AsyncStream<InstanceCounters>
    ) {
        self.announce = announce
        self.builtElsewhere = builtElsewhere
        self.announceCounters = announceCounters
        self.countersElsewhere = countersElsewhere
    }
}

/// One instance's kiosk counters, as it announced them.
public struct InstanceCounters: Hashable, Sendable {
    public var instance: String
    public var counters: KioskCounters

    public init(instance: String, counters: KioskCounters) {
        self.instance = instance
        self.counters = counters
    }
}
