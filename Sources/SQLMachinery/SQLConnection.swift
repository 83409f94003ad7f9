/// The seam the store's operations are written over, once for both databases: a connection
/// inside a transaction (or a consistent read) that runs statements and returns their rows.
///
/// SQLite (``SQLiteDatabase``) and PostgreSQL (``PostgreSQLDatabase``) each implement it; the
/// dialect's few differences are in ``SQLDialect``.
package protocol SQLConnection: Sendable {
    var dialect: SQLDialect { get }

    /// Runs `statement` and returns every row it returns (none for most writes).
    func rows(_ statement: SQLStatement) async throws -> [SQLRow]

    /// Tells every instance on the database `payload` on `channel` when the transaction commits
    /// (PostgreSQL's `NOTIFY`); nothing on SQLite, which one process serves.
    func tell(_ payload: String, on channel: SQLChannel) async throws

    /// Runs `writes`, which return nothing and do not read each other's rows or `statement`'s,
    /// and `statement`, and returns its rows; tells `payload` on `channel` as ``tell(_:on:)``
    /// does. On SQLite one after another, `statement` last. On PostgreSQL as one statement (each
    /// write and `statement` a data-modifying `WITH`, run once and to completion on the one
    /// snapshot, `statement` first; constraints checked at its end): one round trip for all,
    /// where each would be one.
    func rows(
        after writes: [SQLStatement], then statement: SQLStatement, telling payload: String, on channel: SQLChannel
    ) async throws -> [SQLRow]

    /// A condition, always true, that takes `lock` until the transaction ends before the
    /// statement it is part of reads a row (PostgreSQL's advisory lock, as the statement's
    /// one-time filter); plain true on SQLite, whose write transaction holds the file's one write
    /// lock from its start.
    ///
    /// For a write that does most of its work before it needs the lock: the lock is then held
    /// for that statement and the commit, not for one more round trip to take it first. The
    /// statement's snapshot may predate the lock; a row another transaction changed meanwhile is
    /// read again as committed before it is changed (PostgreSQL re-checks an updated row's
    /// conditions on its newest version), so an `UPDATE` judges what was committed under the lock.
    func holding(_ lock: SQLWriteLock) -> SQLStatement
}

extension SQLConnection {
    /// Runs `statement`, discarding any rows.
    package func run(_ statement: SQLStatement) async throws { _ = try await rows(statement) }

    /// The first column of the first row, or nil when there is no row.
    package func value<Value: SQLReadable>(_ statement: SQLStatement, as: Value.Type = Value.self) async throws
        -> Value?
    {
        try await rows(statement).first?.first(as: Value.self)
    }
}

/// A channel the instances on one database tell each other on, by name. A store names its own
/// (`extension SQLChannel { static let … }`).
package struct SQLChannel: Hashable, Sendable {
    package let name: String
    /// Whether what is told on it names the instance that told it (after a space), so that the
    /// teller can skip its own notices when they come back.
    package let namesItsSender: Bool

    package init(_ name: String, namesItsSender: Bool = false) {
        self.name = name
        self.namesItsSender = namesItsSender
    }
}
