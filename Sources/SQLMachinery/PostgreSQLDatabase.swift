import Foundation
import Logging
import PostgresNIO

/// A PostgreSQL database, for a service that runs as several instances on one database: the
/// same statements as on an SQLite file (``SQLDatabase``), through PostgresNIO.
///
/// Every write transaction first takes one transaction-scoped advisory lock (``SQLWriteLock``),
/// so that the writes of every instance follow one another as SQLite's one writer makes them: a
/// check and the write it allows cannot interleave with another instance's. Reads are `REPEATABLE READ`, so that the several queries
/// of one answer see one moment, as SQLite's reads do.
///
/// The pool (`PostgresClient`) must be running (``run()``, a long-lived task such as a
/// ServiceLifecycle service) before any call is answered.
public final class PostgreSQLDatabase: SQLDatabase, CustomStringConvertible {
    /// Where the database is (its description has no password).
    public let location: PostgresLocation
    package let client: PostgresClient
    package let logger: Logger
    /// How long one call may wait for the database, on ``clock``: a lost database must turn into
    /// a refusal the caller sees in seconds ("please try again", 503), not a request held for
    /// the minute the pool keeps retrying before its circuit breaker trips.
    package var callTimeout: Duration { timeouts.call }
    /// The bounds the server holds this instance's connections to (``PostgresTimeouts``).
    public let timeouts: PostgresTimeouts
    /// This process among the instances, in what it tells them on a channel that names its sender
    /// (``SQLChannel/namesItsSender``): random, so
    /// two processes never share it.
    package let instance = String(UInt64.random(in: 0...UInt64.max), radix: 36)
    package let clock: any Clock<Duration>
    /// The one connection this instance listens on, for every channel (``notifications(on:listening:_:)``).
    package let listener: PostgresListeningConnection
    /// The statements every connection of this instance keeps prepared, by name.
    package let keptStatements = PostgresKeptStatements()

    public var description: String { location.description }

    public init(
        location: PostgresLocation, logger: Logger, timeouts: PostgresTimeouts = PostgresTimeouts(),
        clock: any Clock<Duration> = ContinuousClock()
    ) {
        self.location = location
        self.logger = logger
        self.timeouts = timeouts
        self.clock = clock
        client = PostgresClient(
            configuration: location.clientConfiguration(parameters: timeouts.poolParameters), backgroundLogger: logger)
        listener = PostgresListeningConnection {
            try await PostgresConnection.connect(
                configuration: try location.connectionConfiguration(), id: 1, logger: logger)
        }
    }

    /// Runs the connection pool until the task is cancelled; queries wait until it runs.
    public func run() async {
        await client.run()
    }

    /// Opens one connection of its own, asks `SELECT 1` and closes it: at start-up a database
    /// that is not there fails at once with PostgreSQL's own reason ("connection refused",
    /// "database … does not exist", a bad password), where the pool would retry for a minute
    /// behind its circuit breaker and then report only that.
    public func probe() async throws {
        let connection = try await PostgresConnection.connect(
            configuration: try location.connectionConfiguration(), id: 0, logger: logger)
        do {
            _ = try await connection.query("SELECT 1", logger: logger).collect()
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }

    /// Whether the database answers now: `SELECT 1` on a pooled connection.
    public func isReachable() async -> Bool {
        (try? await connection { connection in try await connection.run("SELECT 1", self.logger) }) != nil
    }

    // MARK: - Access

    /// `body` on a pooled connection, within `timeout` (``callTimeout`` unless given), on
    /// ``clock`` (``FirstAnswer``): past it the caller has its answer at once, and the call goes
    /// on by itself until PostgresNIO ends it. A transaction cut off this way is rolled back by
    /// the server when its connection goes, unless its commit had already been sent: then it
    /// stands, and the caller's retry finds it (a write idempotent by a key or a revision is then
    /// safe to retry).
    ///
    /// - Throws: `SQLDatabaseError.unreachable` past the bound; what the body threw (unwrapped
    ///   from PostgresNIO's transaction error when the rollback went cleanly) otherwise.
    package func connection<T: Sendable>(
        within timeout: Duration? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let (client, timeout, location) = (self.client, timeout ?? callTimeout, self.location)
        return try await FirstAnswer.of(
            { try await Self.unwrappingRefusals { try await client.withConnection { try await body($0) } } },
            within: timeout, on: clock,
            otherwise: { SQLDatabaseError.unreachable(database: location.description, after: timeout) })
    }

    /// PostgresNIO wraps whatever a transaction's body threw in a `PostgresTransactionError`
    /// (with the rollback's outcome). Once it rolled back cleanly, what the body threw is the
    /// answer (a store's refusal, as it throws it on SQLite); a failed
    /// rollback or commit stays wrapped, since the outcome is then unknown to the caller.
    private static func unwrappingRefusals<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as PostgresTransactionError {
            if let thrown = error.closureError, error.rollbackError == nil, error.commitError == nil { throw thrown }
            throw error
        }
    }

    /// One statement, on its own (its own transaction).
    package func execute(_ query: PostgresQuery) async throws {
        try await connection { connection in try await connection.run(query, self.logger) }
    }

    // MARK: - SQLDatabase

    /// One consistent read: a read-only transaction at `REPEATABLE READ`, so that the several
    /// queries of one answer see the same moment, as SQLite's read transactions do.
    ///
    /// Begun with its level in one statement (PostgresNIO's `withTransaction` sends a `BEGIN` and
    /// the level would take a second round trip); a read has nothing to keep, so any failure
    /// rolls it back and rethrows what the body threw.
    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    {
        try await connection { connection in
            try await connection.run("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", self.logger)
            do {
                let result = try await body(PostgreSQLConnection(database: self, connection: connection))
                try await connection.run("COMMIT", self.logger)
                return result
            } catch {
                try? await connection.run("ROLLBACK", self.logger)
                throw error
            }
        }
    }

    package func write<T: Sendable>(
        lock: SQLWriteLock?, _ body: @escaping @Sendable (any SQLConnection) async throws -> T
    ) async throws -> T {
        try await write(lock: lock, within: nil, body)
    }

    /// One write transaction holding the advisory lock `lock` (if any) from its first statement
    /// to its commit, within `timeout` (``callTimeout`` unless given).
    package func write<T: Sendable>(
        lock: SQLWriteLock?, within timeout: Duration?,
        _ body: @escaping @Sendable (any SQLConnection) async throws -> T
    ) async throws -> T {
        try await connection(within: timeout) { connection in
            try await connection.withTransaction(logger: self.logger) { connection in
                let connection = PostgreSQLConnection(database: self, connection: connection)
                if let timeout, timeout > self.callTimeout {
                    // A longer wait than a request's (start-up behind another's migration): the
                    // server's bounds on this transaction's statements and lock waits follow it.
                    let bound = PostgresTimeouts.milliseconds(timeout)
                    try await connection.run(
                        "SELECT set_config('statement_timeout', \(bound), true), set_config('lock_timeout', \(bound), true)"
                    )
                }
                if let lock { try await connection.lock(lock) }
                return try await body(connection)
            }
        }
    }

    package func read(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await connection { connection in
            try await PostgreSQLConnection(database: self, connection: connection).rows(statement)
        }
    }

    /// With a notice, the statement (which must return a row for each row it changes) becomes
    /// `WITH changed AS (…) SELECT changed.*, pg_notify(…) FROM changed`: one round trip, a
    /// notice for each row changed, sent when the statement commits, and the statement's rows.
    package func write(_ statement: SQLStatement, telling notice: SQLNotice?) async throws -> [SQLRow] {
        let statement: SQLStatement =
            if let notice {
                """
                WITH changed AS (\(statement))
                SELECT changed.*, pg_notify(\(channel(notice.channel)), \(notice.payload))::text AS told FROM changed
                """
            } else {
                statement
            }
        return try await connection { connection in
            try await PostgreSQLConnection(database: self, connection: connection).rows(statement)
        }
    }

    package func isUniqueViolation(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "23505"
    }

    package func reason(_ error: any Error) -> String { Self.reason(error) }

    package static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return "\(underlying)" }
            return "\(error.code)"
        }
        return "\(error)"
    }
}

extension PostgresConnection {
    /// Runs `query`, discarding any rows.
    package func run(_ query: PostgresQuery, _ logger: Logger) async throws {
        _ = try await self.query(query, logger: logger).collect()
    }

    /// The first column of the first row, if there is a row.
    package func value<T: PostgresDecodable>(_ type: T.Type, _ query: PostgresQuery, _ logger: Logger) async throws
        -> T?
    {
        guard let row = try await self.query(query, logger: logger).collect().first else { return nil }
        return try row.makeRandomAccess()[0].decode(T.self)
    }
}
