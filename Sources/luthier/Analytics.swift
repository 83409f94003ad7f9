import ArgumentParser
import Foundation
import LuthierFeatures
import LuthierLive

/// `luthier analytics`: what customers did with their carts, read from the shop's database —
/// counts per cart action and the configurations most put into carts — for an operator at a
/// terminal, without a browser or the admin token.
struct Analytics: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print cart activity: events per action and the most-added guitar configurations.")

    @Option(help: "The SQLite file the shop runs on (migrated if it is older than this version).")
    var database = "luthier.sqlite"

    @Option(help: "How many of the most-added configurations to list.")
    var top = 10

    func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1.") }
        // Opening would create a fresh, empty shop database: a mistyped path would then read as
        // "no activity" and leave a stray file behind.
        guard database == ":memory:" || FileManager.default.fileExists(atPath: database) else {
            throw ValidationError("No database at \(database); pass the file the shop runs on with --database.")
        }
    }

    func run() async throws {
        let store = try WorkshopStore(path: database)
        let report = try await AnalyticsClient.live(store: store).report(top)
        print(report.plainText(), terminator: "")
    }
}
