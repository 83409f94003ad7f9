import GRDB

@testable import LuthierLive
@testable import SQLMachinery

/// What the tests read of an SQLite file's schema, and the raw SQL they write into an older one.
extension SQLiteDatabase {
    /// The migrations this database has run, oldest first (for diagnostics and tests).
    func appliedMigrations() throws -> [String] {
        try writer.read { db in try Self.migrator.appliedMigrations(db) }
    }

    /// Runs `sql` in one write transaction: for tests that put rows into an older schema by hand
    /// (a store opened with `migratingUpTo:`), which the current methods no longer understand.
    func execute(sql: String) throws {
        try writer.write { db in try db.execute(sql: sql) }
    }

    /// The tables of the schema, SQLite's and GRDB's own left out.
    func tableNames() throws -> Set<String> {
        try writer.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master
                        WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                        """
                )
            )
        }
    }

    /// The columns of `table`, in schema order (for tests of the migrations).
    func columnNames(in table: String) throws -> [String] {
        try writer.read { db in try db.columns(in: table).map(\.name) }
    }

    /// How many rows `table` holds (for tests: that a refused order left no line behind).
    /// `table` is a test's literal, never input.
    func rowCount(in table: String) throws -> Int {
        try writer.read { db in
            try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(table.quotedDatabaseIdentifier)") ?? 0
        }
    }
}
