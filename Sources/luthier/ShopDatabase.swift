import ArgumentParser
import Foundation
import Logging
import LuthierFeatures
import LuthierLive
import SQLMachinery

/// The `--database` option of the shop's admin subcommands, and opening it.
struct ShopDatabase: ParsableArguments {
    @Option(
        help:
            "The SQLite file the shop runs on, or its PostgreSQL database (postgres://user:password@host:5432/database); migrated if older than this version."
    )
    var database = "luthier.sqlite"

    func validate() throws {
        try Self.validate(database)
    }

    /// Refuses a database that is not there: opening would create a fresh, empty shop database, so
    /// a mistyped path would read as an empty shop and a change would land in a stray file nobody
    /// serves. (A PostgreSQL database must exist already: the server says so if it does not.)
    static func validate(_ database: String) throws {
        if PostgresLocation.isPostgres(database) {
            try validatePostgresURL(database)
            return
        }
        guard database == ":memory:" || FileManager.default.fileExists(atPath: database) else {
            throw ValidationError("No database at \(database); pass the file the shop runs on with --database.")
        }
    }

    /// Refuses a `postgres://` URL that cannot be read, with the sentence saying why.
    static func validatePostgresURL(_ database: String) throws {
        do {
            _ = try PostgresLocation(url: database)
        } catch {
            throw ValidationError("--database: \(error)")
        }
    }

    /// Runs `body` with the shop's admin interface on the database, ready (for PostgreSQL, its
    /// pool running and its schema up to date).
    func withAdmin<T>(_ body: (WorkshopAdminClient) async throws -> T) async throws -> T {
        try await Self.withShop(database) { live in try await body(live.admin) }
    }

    /// Runs `body` with the whole live system on `database`, quiet but for errors.
    static func withShop<T>(_ database: String, _ body: (LiveSystem) async throws -> T) async throws -> T {
        var logger = Logger(label: "luthier")
        logger.logLevel = .error
        let live = try LiveSystem(database: database, ratesURL: nil, simulateLatency: false, logger: logger)
        return try await live.running { try await body(live) }
    }
}

/// Ends a subcommand whose change the workshop refused: the sentence on standard error, exit 1.
func refuse(_ sentence: String) -> ExitCode {
    FileHandle.standardError.write(Data("luthier: \(sentence)\n".utf8))
    return ExitCode(1)
}

/// Text padded on the right to `width` characters, for columns.
func padded(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
}

/// Text padded on the left to `width` characters, for figures.
func rightAligned(_ text: String, _ width: Int) -> String {
    text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
}
