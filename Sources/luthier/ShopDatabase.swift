import ArgumentParser
import Foundation
import LuthierLive

/// The `--database` option of the shop's admin subcommands, and opening it.
struct ShopDatabase: ParsableArguments {
    @Option(help: "The SQLite file the shop runs on (migrated if it is older than this version).")
    var database = "luthier.sqlite"

    func validate() throws {
        // Opening would create a fresh, empty shop database: a mistyped path would then read as
        // an empty shop, and a change would land in a stray file nobody serves.
        guard database == ":memory:" || FileManager.default.fileExists(atPath: database) else {
            throw ValidationError("No database at \(database); pass the file the shop runs on with --database.")
        }
    }

    func open() throws -> WorkshopStore {
        try WorkshopStore(path: database)
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
