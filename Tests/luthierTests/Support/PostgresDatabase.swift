import Foundation

/// A fresh database on the test PostgreSQL server (`LUTHIER_TEST_POSTGRES_URL`, which `.ci/run`
/// starts), made with `psql`, for tests of several `luthier` processes sharing one database.
enum PostgresDatabase {
    static let serverURL = ProcessInfo.processInfo.environment["LUTHIER_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    /// Creates an empty database and returns its `postgres://` URL for `--database`.
    static func fresh() throws -> String {
        guard let serverURL, var components = URLComponents(string: serverURL) else {
            throw TestFailure("LUTHIER_TEST_POSTGRES_URL is not set")
        }
        let name = "luthier_process_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let psql = Process()
        psql.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        psql.arguments = [
            "psql", "-q", "-h", components.host ?? "127.0.0.1", "-p", String(components.port ?? 5432),
            "-U", components.user ?? "postgres", "-d", "postgres", "-c", "CREATE DATABASE \(name)",
        ]
        psql.standardInput = FileHandle.nullDevice
        try psql.run()
        psql.waitUntilExit()
        guard psql.terminationStatus == 0 else { throw TestFailure("psql could not create \(name)") }
        components.path = "/" + name
        guard let url = components.string else { throw TestFailure("no URL for \(name)") }
        return url
    }
}
