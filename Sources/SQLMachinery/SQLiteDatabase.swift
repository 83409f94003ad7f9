import Foundation
import GRDB

/// An SQLite file, through GRDB: one process on one machine, nothing to run beside it.
///
/// SQLite gives real transactions on one file: what one write transaction holds (an order and
/// the stock it takes, say) is written together or not at all, even if the process dies
/// half-way. A file is opened in WAL mode (`DatabasePool`: readers never wait for the
/// writer); `":memory:"` opens a private in-memory database (`DatabaseQueue`) for tests. Every
/// write goes through the one serialized writer, which is what makes a check and the write it allows one step, and
/// what every ``SQLWriteLock`` is here.
public final class SQLiteDatabase: SQLDatabase, CustomStringConvertible {
    /// The path given at start-up (or `":memory:"`).
    public let path: String
    /// Whether the file was there but empty (0 bytes) when it was opened: a new database was
    /// started in it, which its owner may want to say loudly (what it held may have been lost).
    public let startedOnEmptyFile: Bool
    /// What `PRAGMA integrity_check` found damaged when the file opened (empty when whole); only
    /// ever non-empty for a file opened `servingCorrupt`.
    public let damage: [String]
    package let writer: any DatabaseWriter
    private let lockWait: WriteLockWait

    /// How many writes have had to wait for another connection's write lock (another process on
    /// the same file) since the file opened.
    public var lockWaits: Int { lockWait.waitCount }

    public var description: String { path }

    /// Opens (creating if needed) the database at `path`, or an in-memory one for `":memory:"`,
    /// checks that an existing one is whole (`PRAGMA integrity_check`), and runs every migration
    /// of `migrator` it has not run yet (up to and including `lastMigration` when one is given:
    /// tests build a database of an older schema with it, good only for raw SQL).
    ///
    /// - Parameters:
    ///   - label: what the database holds, for GRDB's queues' names.
    ///   - servingCorrupt: opens a file the check finds damaged all the same (the operator's
    ///     explicit choice, to read out what is left); the damage is in `damage`.
    ///   - writeLockWait: how long the writes wait, together, for a write lock another process
    ///     holds (see `WriteLockWait`); tests shorten it, or measure it on a clock of their own.
    /// - Throws: `SQLDatabaseError.corrupt` naming the path and what the check found, or
    ///   `.cannotOpen` naming the path and SQLite's reason.
    package init(
        path: String, label: String, migrator: DatabaseMigrator, migratingUpTo lastMigration: String? = nil,
        writeLockWait: Duration = .seconds(5), lockWaitClock: WriteLockWait.Clock = .live, servingCorrupt: Bool = false
    ) throws {
        self.path = path
        // A file of 0 bytes is a new database to SQLite; where data was expected, that is data
        // lost (a failed copy, a truncation). The database opens, and the caller can say so.
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        startedOnEmptyFile = size == 0
        var configuration = Configuration()
        configuration.label = label
        // Another process (a second server, an operator's sqlite3) may hold the write lock briefly;
        // past `writeLockWait` the writes give up, all of them, rather than each waiting in turn.
        let lockWait = WriteLockWait(limit: writeLockWait, clock: lockWaitClock)
        self.lockWait = lockWait
        configuration.busyMode = .callback { tries in lockWait.shouldRetry(numberOfTries: tries) }
        do {
            let writer: any DatabaseWriter =
                if path == ":memory:" {
                    try DatabaseQueue(configuration: configuration)
                } else {
                    try DatabasePool(path: path, configuration: configuration)
                }
            // GRDB sets WAL databases to `synchronous = NORMAL`: a commit then survives a crash of
            // the process but not a power cut. Every commit here is something a caller is told
            // yes to, so each one is synced before it is answered.
            try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            // A damaged page is found now, not by the write that lands on it.
            damage = try Self.integrityProblems(of: writer)
            if !damage.isEmpty, !servingCorrupt {
                throw SQLDatabaseError.corrupt(path: path, problems: damage)
            }
            if let lastMigration {
                try migrator.migrate(writer, upTo: lastMigration)
            } else {
                try migrator.migrate(writer)
            }
            self.writer = writer
        } catch let error as SQLDatabaseError {
            throw error
        } catch {
            throw SQLDatabaseError.cannotOpen(path: path, reason: Self.reason(error))
        }
    }

    // MARK: - SQLDatabase

    package func read<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T
    {
        try await SQLiteConnection.with(
            access: { connection, done in
                writer.asyncRead { db in done(Result { try connection.serve(db.get()) }) }
            }, body)
    }

    package func write<T: Sendable>(
        lock: SQLWriteLock?, _ body: @escaping @Sendable (any SQLConnection) async throws -> T
    ) async throws -> T {
        try await SQLiteConnection.with(
            access: { connection, done in
                writer.asyncWrite { db in
                    try connection.serve(db)
                } completion: { _, outcome in
                    done(outcome)
                }
            }, body)
    }

    package func read(_ statement: SQLStatement) async throws -> [SQLRow] {
        try await writer.read { db in try SQLiteConnection.rows(statement, in: db) }
    }

    package func write(_ statement: SQLStatement, telling notice: SQLNotice?) async throws -> [SQLRow] {
        try await writer.write { db in try SQLiteConnection.rows(statement, in: db) }
    }

    package func isUniqueViolation(_ error: any Error) -> Bool {
        // A primary key is a uniqueness constraint too, with a code of its own on SQLite (one
        // `23505` covers both on PostgreSQL).
        guard let code = (error as? DatabaseError)?.extendedResultCode else { return false }
        return code == .SQLITE_CONSTRAINT_UNIQUE || code == .SQLITE_CONSTRAINT_PRIMARYKEY
    }

    package func reason(_ error: any Error) -> String { Self.reason(error) }

    // MARK: - Opening

    /// What `PRAGMA integrity_check` finds wrong with the database, one finding a line (at most
    /// 20); empty when it is whole. A check that stops on the damage itself reports that.
    package static func integrityProblems(of writer: any DatabaseWriter) throws -> [String] {
        do {
            let rows = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(20)") }
            return rows == ["ok"] ? [] : rows.flatMap { $0.split(separator: "\n").map(String.init) }
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            return [error.message ?? "database disk image is malformed"]
        }
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
