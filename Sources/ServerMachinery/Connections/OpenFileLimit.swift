#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The process's open-file limit, raised at start so that the connection cap, not the kernel,
/// decides who is refused: under the default soft limit of 1,024 descriptors a server with a
/// cap of 16,000 connections would meet `EMFILE` long before its own polite 503.
public enum OpenFileLimit {
    /// Descriptors kept for what is not a connection: the listening sockets, the database and its
    /// journal, logs, the event loops' own descriptors.
    public static let reserve = 64

    /// What to ask of the kernel and what the shop may promise under it.
    public struct Plan: Equatable, Sendable {
        /// The soft limit to set.
        public var soft: UInt64
        /// The connection cap that fits under `soft`: `--max-connections`, or fewer when the limit
        /// cannot grow that far, so that the shop's own 503 acts before the kernel's `EMFILE`.
        public var connections: Int
        /// What to log when the cap had to be lowered.
        public var warning: String?
    }

    /// The plan for the current soft and hard limits and the connection cap asked for. A pure
    /// function, so that every case is testable.
    public static func plan(soft: UInt64, hard: UInt64, maxConnections: Int) -> Plan {
        let asked = max(maxConnections, 1)
        let needed = UInt64(asked) + UInt64(reserve)
        let target = max(soft, min(hard, needed))
        guard target < needed else { return Plan(soft: target, connections: asked, warning: nil) }
        let fitting = max(Int(clamping: target) - reserve, 1)
        return Plan(
            soft: target,
            connections: fitting,
            warning: "The open-file limit is \(target), below the \(needed) that --max-connections \(asked) and "
                + "\(reserve) more descriptors need: the cap is lowered to \(fitting) connections, so that visitors "
                + "past it get the shop's 503 rather than a refused connection. Raise the limit (ulimit -n) to "
                + "serve more."
        )
    }

    /// Raises the soft limit as far as `maxConnections` needs and the hard limit allows; returns
    /// the plan, whose `connections` is the cap to serve with and whose `warning` is to be logged.
    public static func raise(forConnections maxConnections: Int) -> Plan {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            return Plan(
                soft: 0, connections: max(maxConnections, 1),
                warning: "The open-file limit could not be read; the connection cap may not act before the system's.")
        }
        var plan = plan(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max), maxConnections: maxConnections)
        if plan.soft > UInt64(limit.rlim_cur) {
            let before = limit.rlim_cur
            limit.rlim_cur = rlim_t(plan.soft)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
                plan = Self.plan(soft: UInt64(before), hard: UInt64(before), maxConnections: maxConnections)
            }
        }
        return plan
    }

    /// The soft limit in force now.
    public static var current: UInt64 {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? UInt64(limit.rlim_cur) : 0
    }
}
