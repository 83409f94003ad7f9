import PostgresNIO

/// How long Luthier lets the PostgreSQL server and itself wait for each other, so that nothing
/// waits for good on a database, or a peer, that is gone (`--database-timeout`, `--leader-lease`).
///
/// A process that dies has its sockets closed by its kernel, and PostgreSQL notices at once. A
/// machine that vanishes, or a link that is cut, closes nothing: without these bounds the server
/// would hold a cut-off leader's lock, and a cut-off transaction's locks, until TCP gave up, which
/// by default takes hours. Each bound is set by Luthier on its own connections, in their start-up
/// packet, so no change to the server's configuration is needed.
public struct PostgresTimeouts: Sendable, Hashable {
    /// How long one call waits for the database before the caller is refused (`503`, "please try
    /// again"); the server's bound on one statement (`statement_timeout`), on one wait for a lock
    /// (`lock_timeout`) and on a transaction left open with nothing sent (`idle_in_transaction_session_timeout`):
    /// a transaction whose client was cut off gives its locks back within this.
    public var call: Duration
    /// How long the server keeps a leader's lock (a session-level advisory lock) after it last
    /// heard from the leader (`idle_session_timeout` on the leader's connection, which asks every
    /// second), and how long data may go unacknowledged on any connection (`tcp_user_timeout`,
    /// with keepalives) before the server drops it. A new leader takes over within this and a second.
    public var leaderLease: Duration

    public init(call: Duration = .seconds(5), leaderLease: Duration = .seconds(3)) {
        self.call = call
        self.leaderLease = leaderLease
    }

    /// What a pooled connection asks the server to hold it to.
    package var poolParameters: [(String, String)] {
        [
            ("statement_timeout", Self.milliseconds(call)),
            ("lock_timeout", Self.milliseconds(call)),
            ("idle_in_transaction_session_timeout", Self.milliseconds(call)),
        ] + networkParameters
    }

    /// What the leader's connection asks: the server ends it, and so frees the lock, when it has
    /// heard nothing from the leader for the lease.
    package var leaderParameters: [(String, String)] {
        [("idle_session_timeout", Self.milliseconds(leaderLease))] + networkParameters
    }

    /// TCP's own bounds on the server's side of a connection: probes after a second of silence,
    /// and unacknowledged data dropped after the lease. (Ignored on a Unix socket.)
    private var networkParameters: [(String, String)] {
        [
            ("tcp_keepalives_idle", "1"),
            ("tcp_keepalives_interval", "1"),
            ("tcp_keepalives_count", String(max(1, Self.wholeSeconds(leaderLease)))),
            ("tcp_user_timeout", Self.milliseconds(leaderLease)),
        ]
    }

    /// Whole milliseconds, rounded toward zero, as PostgreSQL's settings take them.
    package static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return String(seconds * 1_000 + attoseconds / 1_000_000_000_000_000)
    }

    private static func wholeSeconds(_ duration: Duration) -> Int { Int(duration.components.seconds) }
}
