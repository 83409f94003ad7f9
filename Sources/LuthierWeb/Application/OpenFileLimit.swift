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

    /// The soft limit to ask for, and what to warn about, given the current soft and hard limits
    /// and the descriptors the caps may need. A pure function, so that every case is testable.
    public static func plan(soft: UInt64, hard: UInt64, needed: UInt64) -> (soft: UInt64, warning: String?) {
        let target = max(soft, min(hard, needed))
        guard target < needed else { return (target, nil) }
        return (
            target,
            "The open-file limit is \(target), below the \(needed) that --max-connections and \(reserve) more "
                + "descriptors need: past \(target > UInt64(reserve) ? target - UInt64(reserve) : 0) connections "
                + "the system, not the shop, refuses visitors. Raise it (ulimit -n) or lower --max-connections."
        )
    }

    /// Raises the soft limit as far as `maxConnections` needs and the hard limit allows; returns a
    /// warning to log when the caps cannot fit under it.
    public static func raise(forConnections maxConnections: Int) -> String? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
            return "The open-file limit could not be read; the connection cap may not act before the system's."
        }
        let needed = UInt64(max(maxConnections, 0)) + UInt64(reserve)
        let (soft, warning) = plan(soft: UInt64(limit.rlim_cur), hard: UInt64(limit.rlim_max), needed: needed)
        if soft > UInt64(limit.rlim_cur) {
            limit.rlim_cur = rlim_t(soft)
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) != 0 {
                return "The open-file limit could not be raised from \(limit.rlim_cur) to \(soft)."
            }
        }
        return warning
    }

    /// The soft limit in force now.
    public static var current: UInt64 {
        var limit = rlimit()
        return getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 ? UInt64(limit.rlim_cur) : 0
    }
}
