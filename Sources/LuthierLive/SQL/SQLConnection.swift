/// The seam the store's operations are written over, once for both databases: a connection
/// inside a transaction (or a consistent read) that runs statements and returns their rows.
///
/// SQLite (``SQLiteDatabase``) and PostgreSQL (``PostgreSQLDatabase``) each implement it; the
/// dialect's few differences are in ``SQLDialect``.
protocol SQLConnection: Sendable {
    var dialect: SQLDialect { get }

    /// Runs `statement` and returns every row it returns (none for most writes).
    func rows(_ statement: SQLStatement) async throws -> [SQLRow]

    /// Tells every instance on the database `payload` on `channel` when the transaction commits
    /// (PostgreSQL's `NOTIFY`); nothing on SQLite, which one process serves.
    func tell(_ payload: String, on channel: SQLChannel) async throws

    /// Takes `lock` until the transaction ends (PostgreSQL's advisory lock), for a write that
    /// does part of its work before it needs the lock; nothing on SQLite, whose write transaction
    /// holds the file's one write lock from its start.
    func lock(_ lock: SQLWriteLock) async throws
}

extension SQLConnection {
    /// Runs `statement`, discarding any rows.
    func run(_ statement: SQLStatement) async throws { _ = try await rows(statement) }

    /// The first column of the first row, or nil when there is no row.
    func value<Value: SQLReadable>(_ statement: SQLStatement, as: Value.Type = Value.self) async throws -> Value? {
        try await rows(statement).first?.first(as: Value.self)
    }
}

/// What the instances on one database tell each other.
enum SQLChannel: String, Sendable {
    /// Orders placed, moved or changed.
    case workshop
    /// Sessions saved or deleted.
    case sessions
}
