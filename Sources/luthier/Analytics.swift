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

    @Option(
        help:
            "The SQLite file the shop runs on, or its PostgreSQL database (postgres://user:password@host:5432/database); migrated if older than this version."
    )
    var database = "luthier.sqlite"

    @Option(help: "How many of the most-added configurations to list.")
    var top = 10

    func validate() throws {
        guard top > 0 else { throw ValidationError("--top must be at least 1.") }
        try ShopDatabase.validate(database)
    }

    func run() async throws {
        let top = top
        let report = try await ShopDatabase.withShop(database) { live in
            try await live.environment.analytics.report(top)
        }
        print(report.plainText(), terminator: "")
    }
}
