import Foundation

/// A database a store runs on: how it reads consistently, how it writes under a named lock, and
/// what it says when it fails. A store's operations are written once over
/// this and ``SQLConnection`` (as vapor/sql-kit's are over its `SQLDatabase`); what differs is
/// here:
///
/// - SQLite has one writer: a write transaction is `BEGIN IMMEDIATE`, and every lock is that one.
/// - PostgreSQL serves several instances: a write transaction first takes the named advisory lock
///   (``SQLWriteLock``), and its notifications go out when it commits.
package protocol SQLDatabase: Sendable {
    /// Runs `body` in one read that sees one moment of the database.
    func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T

    /// Runs `body` in one write transaction holding `lock` (none: only the transaction):
    /// committed when it returns, rolled back when it throws.
    func write<T: Sendable>(
        lock: SQLWriteLock?, _ body: @escaping @Sendable (any SQLConnection) async throws -> T
    ) async throws -> T

    /// One statement read on its own.
    func read(_ statement: SQLStatement) async throws -> [SQLRow]

    /// One statement written on its own (its own transaction, no lock), telling `notice` to
    /// every instance in the same statement when it changes a row.
    func write(_ statement: SQLStatement, telling notice: SQLNotice?) async throws -> [SQLRow]

    /// Whether `error` is a `UNIQUE` or `PRIMARY KEY` constraint refusing a row (another writer
    /// got there first, or a key drawn at random was taken).
    func isUniqueViolation(_ error: any Error) -> Bool

    /// The database's own words for why `error` happened.
    func reason(_ error: any Error) -> String

    /// Where the database is, for messages (never a password).
    var description: String { get }
}

extension SQLDatabase {
    /// One statement written on its own.
    @discardableResult
    package func write(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await write(statement, telling: nil)
    }
}

/// A lock the writes take turns under, by name (PostgreSQL's advisory locks; SQLite's one writer).
/// A store names its own (`extension SQLWriteLock { static let … }`).
package struct SQLWriteLock: Hashable, Sendable {
    /// What the lock is keyed by, with the schema.
    package let name: String

    package init(_ name: String) { self.name = name }

    /// Migrations, so that instances starting together migrate once.
    package static let migrations = SQLWriteLock("migrations")
}

/// A notification a write sends when it commits: one for each row the write changed.
package struct SQLNotice: Sendable {
    package let channel: SQLChannel
    /// The text told: a value, or an expression of the changed row's columns (`changed.key`).
    package let payload: SQLStatement

    package init(channel: SQLChannel, payload: SQLStatement) {
        self.channel = channel
        self.payload = payload
    }
}
