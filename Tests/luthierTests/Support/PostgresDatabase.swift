import Foundation

/// A fresh database on the test PostgreSQL server (`LUTHIER_TEST_POSTGRES_URL`, which `.ci/run`
/// starts), made with `psql`, for tests of several `luthier` processes sharing one database.
enum PostgresDatabase {
    static let serverURL = ProcessInfo.processInfo.environment["LUTHIER_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Creates an empty database and returns its `postgres://` URL for `--database`; the test
    /// drops it when done (``drop(_:)``), so that runs against a developer's server leave none.
    static func fresh() throws -> String {
        guard let serverURL, var components = URLComponents(string: serverURL) else {
            throw TestFailure("LUTHIER_TEST_POSTGRES_URL is not set")
        }
        let name = "luthier_process_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        guard try psql("CREATE DATABASE \(name)", on: components) else {
            throw TestFailure("psql could not create \(name)")
        }
        components.path = "/" + name
        guard let url = components.string else { throw TestFailure("no URL for \(name)") }
        return url
    }

    /// Drops the database `url` names, ending any connection still open to it.
    static func drop(_ url: String) {
        guard let components = URLComponents(string: url), components.path.count > 1 else { return }
        _ = try? psql("DROP DATABASE IF EXISTS \(components.path.dropFirst()) WITH (FORCE)", on: components)
    }

    /// Runs `sql` on the server's `postgres` database; whether it succeeded.
    private static func psql(_ sql: String, on components: URLComponents) throws -> Bool {
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = [
            "psql", "-q", "-h", components.host ?? "127.0.0.1", "-p", String(components.port ?? 5432),
            "-U", components.user ?? "postgres", "-d", "postgres", "-c", sql,
        ]
        psql.standardInput = FileHandle.nullDevice
        try psql.run()
        psql.waitUntilExit()
        return psql.terminationStatus == 0
    }
}

/// A shop's PostgreSQL database read by the test itself through `psql` (a process of its own, as
/// an operator's would be): the same figures `ShopDatabase` reads from an SQLite file.
struct PostgresShop {
    let url: String

    /// Runs `sql` and returns its rows, each a list of columns (`psql -At`, `|`-separated).
    func rows(_ sql: String) throws -> [[String]] {
        guard let components = URLComponents(string: url) else { throw TestFailure("not a URL: \(url)") }
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = [
            "psql", "-At", "-h", components.host ?? "127.0.0.1", "-p", String(components.port ?? 5432),
            "-U", components.user ?? "postgres", "-d", String(components.path.dropFirst()), "-c", sql,
        ]
        let output = Pipe()
        psql.standardOutput = output
        psql.standardInput = FileHandle.nullDevice
        try psql.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else { throw TestFailure("psql failed on: \(sql)") }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map {
            $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        }
    }

    func stock() throws -> [ShopDatabase.Wood: Int] {
        var stock: [ShopDatabase.Wood: Int] = [:]
        for row in try rows("SELECT kind, wood, quantity FROM wood_stock") where row.count == 3 {
            stock[ShopDatabase.Wood(kind: row[0], wood: row[1])] = Int(row[2])
        }
        return stock
    }

    func orders() throws -> [String: ShopDatabase.Order] {
        var orders: [String: ShopDatabase.Order] = [:]
        for row in try rows("SELECT number, total_minor FROM orders") where row.count == 2 {
            orders[row[0]] = ShopDatabase.Order(number: row[0], totalMinor: Int(row[1]) ?? -1, lines: [])
        }
        let lines = try rows(
            "SELECT order_number, shape, color, body, fretboard, quantity FROM order_lines ORDER BY order_number, position"
        )
        for row in lines where row.count == 6 {
            let line = ShopDatabase.Line(
                shape: row[1], color: row[2], body: row[3], fretboard: row[4], quantity: Int(row[5]) ?? 0)
            orders[row[0], default: ShopDatabase.Order(number: row[0], totalMinor: -1, lines: [])].lines.append(line)
        }
        return orders
    }
}
