import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL database is, read from `--database postgres://user:password@host:port/db`.
///
/// The URL is the form every PostgreSQL tool takes (libpq's connection URI), so an operator can
/// paste the one `psql` already uses. Only what Luthier needs is read: user, password, host,
/// port (5432 by default), the database (the user's name by default) and `sslmode` (`disable`,
/// `prefer`, the default, or `require`). The password never appears in ``description``, which is
/// what logs and errors show.
public struct PostgresLocation: Sendable, Hashable, CustomStringConvertible {
    public enum TLSMode: String, Sendable, Hashable {
        case disable, prefer, require
    }

    public var host: String
    public var port: Int
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode
    /// The schema the tables live in (`search_path`); nil for the server's default (`public`).
    /// Tests give each run its own.
    public var schema: String?

    /// Whether `argument` names a PostgreSQL database rather than an SQLite file.
    public static func isPostgres(_ argument: String) -> Bool {
        argument.hasPrefix("postgres://") || argument.hasPrefix("postgresql://")
    }

    /// Reads a `postgres://` (or `postgresql://`) URL.
    ///
    /// - Throws: `PostgresLocationError` with a sentence naming what is missing or wrong.
    public init(url text: String) throws {
        guard Self.isPostgres(text), let components = URLComponents(string: text) else {
            throw PostgresLocationError("must look like postgres://user:password@host:5432/database")
        }
        guard let host = components.host, !host.isEmpty else {
            throw PostgresLocationError("names no host (postgres://user@host/database)")
        }
        guard let user = components.user, !user.isEmpty else {
            throw PostgresLocationError("names no user (postgres://user@host/database)")
        }
        let port = components.port ?? 5432
        guard (1...65_535).contains(port) else { throw PostgresLocationError("has a port outside 1–65535") }
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        var tls = TLSMode.prefer
        for item in components.queryItems ?? [] {
            switch item.name {
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw PostgresLocationError("has sslmode '\(item.value ?? "")'; use disable, prefer or require")
                }
                tls = mode
            default:
                throw PostgresLocationError(
                    "has the parameter '\(item.name)', which Luthier does not read; only sslmode")
            }
        }
        self.host = host
        self.port = port
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = path.isEmpty ? self.username : (path.removingPercentEncoding ?? path)
        self.tls = tls
    }

    /// The URL without its password.
    public var description: String {
        "postgres://\(username)@\(host):\(port)/\(database)" + (schema.map { " (schema \($0))" } ?? "")
    }

    /// The client's configuration: the pool Luthier uses for every query, its connections held to
    /// `parameters` (``PostgresTimeouts``) by the server.
    package func clientConfiguration(parameters: [(String, String)] = []) -> PostgresClient.Configuration {
        let tls: PostgresClient.Configuration.TLS =
            switch self.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        // Run-time parameters in the start-up packet: every connection of the pool has them (its
        // schema first on the search path, its bounds) without a `SET` per lease.
        configuration.options.additionalStartupParameters = startupParameters(parameters)
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }

    /// The same place for one connection of its own (``PostgreSQLDatabase/probe()``, the floor's
    /// leader), held to `parameters` by the server.
    package func connectionConfiguration(parameters: [(String, String)] = []) throws -> PostgresConnection.Configuration
    {
        let tls: PostgresConnection.Configuration.TLS =
            switch self.tls {
            case .disable: .disable
            case .prefer: .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
            case .require: .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
            }
        var configuration = PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: tls)
        configuration.options.connectTimeout = .seconds(5)
        configuration.options.additionalStartupParameters = startupParameters(parameters)
        return configuration
    }

    private func startupParameters(_ parameters: [(String, String)]) -> [(String, String)] {
        (schema.map { [("search_path", $0)] } ?? []) + parameters
    }
}

/// A `--database postgres://…` that cannot be read; the sentence says what is wrong.
public struct PostgresLocationError: Error, Hashable, Sendable, CustomStringConvertible {
    public let problem: String

    package init(_ problem: String) { self.problem = problem }

    public var description: String { "The PostgreSQL URL \(problem)." }
}
