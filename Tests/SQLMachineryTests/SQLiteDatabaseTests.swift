import GRDB
import Testing

@testable import SQLMachinery

/// The query layer on SQLite alone, with a schema of its own: nothing of the shop is needed to
/// open a database, write under a lock, read it back or tell a refusal apart. (A path that cannot
/// be opened is the shop's `WorkshopStoreTests`, through the error this layer throws.)
@Suite struct SQLiteDatabaseTests {
    /// One table of names, each at most once, with a code each at most once.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-names") { db in
            try db.execute(sql: "CREATE TABLE names (name TEXT PRIMARY KEY, length INTEGER NOT NULL, code TEXT UNIQUE)")
        }
        return migrator
    }

    static func database() throws -> SQLiteDatabase {
        try SQLiteDatabase(path: ":memory:", label: "names", migrator: migrator)
    }

    @Test func aWriteTransactionIsCommittedWhenItsBodyReturnsAndUndoneWhenItThrows() async throws {
        let database = try Self.database()
        let lock = SQLWriteLock("names")
        try await database.write(lock: lock) { connection in
            try await connection.run("INSERT INTO names (name, length) VALUES (\("ash"), \(3))")
        }
        await #expect(throws: Refused.self) {
            try await database.write(lock: lock) { connection in
                try await connection.run("INSERT INTO names (name, length) VALUES (\("maple"), \(5))")
                throw Refused()
            }
        }
        let rows = try await database.read("SELECT name, length FROM names ORDER BY name")
        #expect(try rows.map { row -> String in try row["name"] } == ["ash"])
        #expect(try rows.map { row -> Int in try row["length"] } == [3])
    }

    @Test func aValueIsBoundNeverSplicedIntoTheStatement() async throws {
        let database = try Self.database()
        let hostile = "x'); DROP TABLE names; --"
        try await database.write("INSERT INTO names (name, length) VALUES (\(hostile), \(hostile.count))")
        let read = try await database.read(
            "SELECT name FROM names WHERE name IN \(list: [hostile, "ash"])"
        ).map { row -> String in try row["name"] }
        #expect(read == [hostile])
    }

    /// A key drawn at random and taken already is refused by a `PRIMARY KEY`, which SQLite
    /// reports with a code of its own: a caller that draws again on a uniqueness refusal must see
    /// it as one.
    @Test func aPrimaryKeyOrUniqueRefusalIsToldApartFromOtherFailures() async throws {
        let database = try Self.database()
        try await database.write("INSERT INTO names (name, length, code) VALUES (\("ebony"), \(5), \("E"))")
        let takenKey = await #expect(throws: (any Error).self) {
            try await database.write("INSERT INTO names (name, length, code) VALUES (\("ebony"), \(5), \("F"))")
        }
        let takenCode = await #expect(throws: (any Error).self) {
            try await database.write("INSERT INTO names (name, length, code) VALUES (\("koa"), \(3), \("E"))")
        }
        #expect(takenKey.map(database.isUniqueViolation) == true)
        #expect(takenCode.map(database.isUniqueViolation) == true)
        #expect(database.isUniqueViolation(Refused()) == false)
    }

    private struct Refused: Error {}
}
