import Foundation
import Testing

/// `luthier stock`, `luthier orders` and `luthier codes` as a shop owner runs them at a terminal,
/// on the database of a real server that is running: what they print, what they change, and the
/// sentence and exit status of what the workshop refuses.
@Suite("luthier stock, orders and codes", .serialized)
struct AdminCommandTests {
    /// Runs `luthier <arguments> --database <database>`; its exit status, standard output and error.
    static func luthier(_ arguments: [String], database: URL) throws -> (status: Int32, output: String, error: String) {
        try luthier(arguments, database: database.path)
    }

    /// As above, with the database as `--database` takes it (a path or a `postgres://` URL).
    static func luthier(_ arguments: [String], database: String) throws -> (
        status: Int32, output: String, error: String
    ) {
        let process = Process()
        process.executableURL = try Locations.luthierBinary()
        process.arguments = arguments + ["--database", database]
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let printed = output.fileHandleForReading.readDataToEndOfFile()
        let complained = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            process.terminationStatus, String(decoding: printed, as: UTF8.self),
            String(decoding: complained, as: UTF8.self)
        )
    }

    @Test("a code added or expired from the shell reaches the running server's carts; a past expiry is refused")
    func codesFromTheShellReachTheRunningServer() async throws {
        try await withShop { bench, client in
            let server = try await bench.startServer()
            let database = bench.database
            let cookie = try await client.newSession(on: server.baseURL)
            #expect(try await client.post(server.url("/cart/items"), form: "", cookie: cookie).status == 204)
            let discount = server.url("/cart/discount")

            let past = try Self.luthier(["codes", "add", "LATE20=20%@2020-01-01"], database: database)
            #expect(past.status == 64, "\(past)")
            #expect(past.error.contains("LATE20 would stop working on 1 Jan 2020"), "\(past)")
            #expect(past.error.contains("which has passed"), "\(past)")
            // Refused, so the name is still free: a later expiry is taken.
            #expect(try Self.luthier(["codes", "add", "LATE20=20%@2099-01-01"], database: database).status == 0)

            // The running server takes it within its refresh (2 s): the customer can apply it.
            try await waitUntil("the shell's code works on the running server", limit: .seconds(10)) {
                try await client.post(discount, form: "code=late20", cookie: cookie).status == 204
            }
            let applied = try await client.get(server.url("/cart"), cookie: cookie)
            #expect(applied.text.contains("LATE20 (20 % off)"), "\(applied)")

            let expired = try Self.luthier(["codes", "expire", "LATE20"], database: database)
            #expect(expired.output == "LATE20 no longer works; running servers stop taking it within 2 seconds.\n")
            try await waitUntil("the shell's expiry reaches the cart", limit: .seconds(10)) {
                try await !client.get(server.url("/cart"), cookie: cookie).text.contains("LATE20 (20 % off)")
            }
            let again = try await client.post(discount, form: "code=late20", cookie: cookie)
            #expect(again.status == 422, "\(again)")
            #expect(again.text.contains("has expired"), "\(again)")
        }
    }

    @Test("a day at the terminal: stock, a restock, an order found, shown and cancelled, codes added and expired")
    func aDayAtTheTerminal() async throws {
        try await withWorkbench { bench in
            let server = try await bench.startServer()
            defer { server.stop() }
            let client = ShopClient()
            defer { Task { await client.shutdown() } }
            let customer = Customer(client: client, server: server.baseURL)
            let cookie = try await customer.checkedOut(GuitarChoice(body: "koa", fretboard: "ebony"))
            #expect(try await client.post(server.url("/checkout/order"), cookie: cookie).status == 204)
            let database = bench.database

            let stock = try Self.luthier(["stock"], database: database)
            #expect(stock.status == 0, "\(stock)")
            #expect(stock.output.contains(/body\/koa\s+5\s+1\s+0/), "\(stock.output)")
            #expect(stock.output.contains(/fretboard\/ebony\s+7\s+1\s+0/), "\(stock.output)")

            let restock = try Self.luthier(
                ["stock", "adjust", "body/koa", "--change", "+4", "--note", "Delivery"], database: database)
            #expect(restock.status == 0, "\(restock)")
            #expect(restock.output == "Koa body blanks: +4, 9 in stock.\n")
            let refused = try Self.luthier(
                ["stock", "adjust", "body/koa", "--change", "-10", "--note", "count"], database: database)
            #expect(refused.status == 1)
            #expect(refused.error.contains("change: -10 would leave -1 Koa body blanks; there are 9"), "\(refused)")
            let history = try Self.luthier(["stock", "history"], database: database)
            #expect(history.output.contains("Delivery"))

            let orders = try Self.luthier(["orders", "--stage", "woodSelection"], database: database)
            let number = try #require(orders.output.firstMatch(of: /LU-[2-9A-Z]{6}/).map { String($0.output) })
            let shown = try Self.luthier(["orders", "show", number.lowercased()], database: database)
            #expect(shown.output.hasPrefix("Order \(number): Wood selection\n"), "\(shown)")
            #expect(shown.output.contains("History:\n"))

            let cancelled = try Self.luthier(
                ["orders", "cancel", number, "--note", "Customer called"], database: database)
            #expect(cancelled.status == 0, "\(cancelled)")
            #expect(cancelled.output == "\(number) is cancelled; its woods are back in stock.\n")
            #expect(try Self.luthier(["stock"], database: database).output.contains(/body\/koa\s+10\s+0\s+0/))
            let again = try Self.luthier(["orders", "cancel", number, "--note", "again"], database: database)
            #expect(again.status == 1)
            #expect(again.error.contains("is at Cancelled"))
            #expect(try Self.luthier(["orders", "collect", number], database: database).status == 1)
            // The running server reads the order from the same database.
            let page = try await client.get(server.url("/orders/\(number)"), cookie: cookie)
            #expect(page.text.contains("Cancelled"))

            #expect(try Self.luthier(["codes"], database: database).output.contains(/WELCOME10\s+10%\s+never\s+works/))
            let added = try Self.luthier(["codes", "add", "SPRING15=15%@2099-06-01"], database: database)
            #expect(added.output == "Added SPRING15 (15 % off).\n", "\(added)")
            #expect(try Self.luthier(["codes", "add", "spring15=5%"], database: database).status == 1)
            #expect(try Self.luthier(["codes", "add", "NOPE=0%"], database: database).status != 0)
            #expect(try Self.luthier(["codes", "expire", "welcome10"], database: database).status == 0)
            let codes = try Self.luthier(["codes"], database: database).output
            #expect(codes.contains(/WELCOME10\s+10%\s+.*expired/), "\(codes)")
            #expect(codes.contains(/SPRING15\s+15%\s+1 Jun 2099, 00:00 UTC\s+works/), "\(codes)")

            let missing = try Self.luthier(["stock"], database: bench.directory.appendingPathComponent("typo.sqlite"))
            #expect(missing.status != 0)
            #expect(missing.error.contains("No database at"))
        }
    }

    /// The owner's stories, added from a shell beside a running server, read back through the
    /// journal's API (Hacker News's format) with the workshop's own restock story.
    @Test("luthier journal adds a story that the running server's API serves, and lists the journal")
    func journalFromTheTerminal() async throws {
        try await withWorkbench { bench in
            let server = try await bench.startServer()
            defer { server.stop() }
            let client = ShopClient()
            defer { Task { await client.shutdown() } }
            let database = bench.database
            #expect(try Self.luthier(["journal"], database: database).output == "The journal has no story yet.\n")
            let added = try Self.luthier(
                ["journal", "add", "Open workshop this Saturday", "--url", "https://example.com/open"],
                database: database)
            #expect(added.status == 0, "\(added)")
            #expect(added.output == "Story 1 added: Open workshop this Saturday\n")
            let refused = try Self.luthier(["journal", "add", "two\nlines"], database: database)
            #expect(refused.status != 0)
            #expect(
                refused.error.contains(
                    "title: a story needs a title of 1–200 characters on one line; it has a line break."),
                "\(refused)")
            let badLink = try Self.luthier(["journal", "add", "x", "--url", "ftp://example.com"], database: database)
            #expect(badLink.error.contains("url: 'ftp://example.com' is not an http or https address"), "\(badLink)")
            _ = try Self.luthier(
                ["stock", "adjust", "body/koa", "--change", "+2", "--note", "Delivery"], database: database)

            let list = try Self.luthier(["journal"], database: database)
            #expect(list.status == 0)
            #expect(list.output.contains(/\ 2  .*workshop Restocked: 2 Koa body blanks\n/), "\(list.output)")
            #expect(
                list.output.contains(/\ 1  .*owner    Open workshop this Saturday  <https:\/\/example.com\/open>\n/))
            #expect(try await client.get(server.url("/api/v0/newstories.json")).text == "[2,1]")
            let item = try await client.get(server.url("/api/v0/item/1.json")).text
            #expect(
                item.contains(
                    #""title":"Open workshop this Saturday","type":"story","url":"https://example.com/open""#),
                "\(item)")
        }
    }

    /// One shop's journal panel reading another's API (`--news-url`): the owner's story and the
    /// workshop's restock, served by the first over HTTP, shown by the second's `/journal`.
    @Test("--news-url: the journal panel reads another shop's Hacker-News-compatible API")
    func journalReadsAnotherShop() async throws {
        try await withWorkbench { bench in
            let first = try await bench.startServer()
            defer { first.stop() }
            let database = bench.database
            _ = try Self.luthier(["journal", "add", "Open workshop this Saturday"], database: database)
            _ = try Self.luthier(
                ["stock", "adjust", "body/koa", "--change", "+2", "--note", "Delivery"], database: database)
            let other = bench.directory.appendingPathComponent("other.sqlite").path
            let second = try await bench.startServer(arguments: [
                "--database", other, "--news-url", first.url("/api"), "--news-refresh", "5",
            ])
            defer { second.stop() }
            let client = ShopClient()
            defer { Task { await client.shutdown() } }
            // Its reader loads at start and then every 5 s (this waits for the first load only).
            try await waitUntil("the second shop's journal shows the first's stories", limit: .seconds(20)) {
                let page = try? await client.get(second.url("/journal"))
                return page?.text.contains("Open workshop this Saturday") == true
            }
            let page = try await client.get(second.url("/journal")).text
            let restock = try #require(page.range(of: "Restocked: 2 Koa body blanks"))
            let openDay = try #require(page.range(of: "Open workshop this Saturday"))
            #expect(restock.lowerBound < openDay.lowerBound, "newest first")
            let refused = try Self.luthier(["--news-url", "ftp://x"], database: database)
            #expect(refused.status != 0)
            #expect(refused.error.contains("--news-url must be an http(s) URL"), "\(refused)")
            let negative = try Self.luthier(["--hidden-stream-close-seconds=-1"], database: database)
            #expect(negative.status != 0)
            #expect(negative.error.contains("--hidden-stream-close-seconds must be from 0 (never) to 86400"))
        }
    }
}
