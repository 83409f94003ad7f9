import Clocks
import Foundation
import Logging
import LuthierFeatures
import PostgresNIO
import Testing

@testable import LuthierLive
@testable import SQLMachinery

/// A fresh store the shop can run on, seeded with the standard stock, behind the four interfaces
/// the shop uses: what the contract suites run against. SQLite always; PostgreSQL when
/// `LUTHIER_TEST_POSTGRES_URL` names a server (`.ci/run` starts one), each test then in a schema
/// of its own, dropped afterwards.
struct StoreBackend: Sendable, CustomTestStringConvertible {
    struct Clients: Sendable {
        let workshop: WorkshopClient
        let admin: WorkshopAdminClient
        let sessions: SessionStore
        let analytics: AnalyticsClient
        let journal: JournalClient
        /// The store behind them, for what no client offers (starting a floor term).
        let store: WorkshopStore
    }

    let name: String
    /// Makes a fresh store on the clock `now`, runs `body` with its clients, and clears it away.
    let run: @Sendable (_ now: MovableNow, _ body: @Sendable (Clients) async throws -> Void) async throws -> Void

    var testDescription: String { name }

    /// Runs `body` on a fresh store whose clock reads `now` (a fixed moment unless given).
    func with(
        now: MovableNow = MovableNow(Date(timeIntervalSince1970: 1_800_000_000)),
        _ body: @Sendable (Clients) async throws -> Void
    ) async throws {
        try await run(now, body)
    }

    static let sqlite = StoreBackend(name: "SQLite") { now, body in
        let store = try WorkshopStore(path: ":memory:", now: { now() })
        try await body(
            Clients(
                workshop: .live(store: store, clock: TestClock()), admin: .live(store: store),
                sessions: .live(store: store), analytics: .live(store: store), journal: .live(store: store),
                store: store))
    }

    /// The PostgreSQL server the tests may use, from `LUTHIER_TEST_POSTGRES_URL`.
    static let postgresURL = ProcessInfo.processInfo.environment["LUTHIER_TEST_POSTGRES_URL"].flatMap {
        $0.isEmpty ? nil : $0
    }

    static func postgres(url: String) -> StoreBackend {
        StoreBackend(name: "PostgreSQL") { now, body in
            try await PostgresTestSchema.with(url: url, now: now) { instance in
                let store = instance.store
                try await body(
                    Clients(
                        workshop: .live(
                            store: store, latency: SimulatedLatency(clock: TestClock(), isEnabled: false),
                            changesElsewhere: { instance.database.changes() }),
                        admin: .live(store: store), sessions: .live(store: store, postgres: instance.database),
                        analytics: .live(store: store), journal: .live(store: store), store: store))
            }
        }
    }

    /// Every store to hold to the contracts on this machine.
    static let all: [StoreBackend] = [sqlite] + (postgresURL.map { [postgres(url: $0)] } ?? [])
}

/// One instance of the shop on a PostgreSQL schema: its database and the store on it.
struct PostgresInstance: Sendable {
    let database: PostgreSQLDatabase
    let store: WorkshopStore

    init(database: PostgreSQLDatabase, now: MovableNow) {
        self.database = database
        store = WorkshopStore(postgres: database, now: { now() })
    }

    /// Another instance on the same schema, whose pool must be run (`database.run()`).
    func another(
        now: MovableNow, logger: Logger = .quiet, callTimeout: Duration = .seconds(5),
        clock: any Clock<Duration> = ContinuousClock()
    ) -> PostgresInstance {
        PostgresInstance(
            database: PostgreSQLDatabase(
                location: database.location, logger: logger, timeouts: PostgresTimeouts(call: callTimeout), clock: clock
            ),
            now: now)
    }
}

/// A schema of its own on the test server, for one test: made, migrated, handed over, dropped.
enum PostgresTestSchema {
    static func with(
        url: String, now: MovableNow, _ body: @Sendable (PostgresInstance) async throws -> Void
    ) async throws {
        var location = try PostgresLocation(url: url)
        var logger = Logger(label: "postgres-test")
        logger.logLevel = .error
        let server = PostgreSQLDatabase(
            location: location, logger: logger, timeouts: PostgresTimeouts(call: .seconds(60)))
        location.schema = "luthier_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        // The bound a call may wait is not what the contracts check; under the whole suite's load
        // a generous one keeps them about the stores.
        let database = PostgreSQLDatabase(
            location: location, logger: logger, timeouts: PostgresTimeouts(call: .seconds(60)))
        let schema = location.schema ?? ""
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await server.run() }
            group.addTask { await database.run() }
            defer { group.cancelAll() }
            try await server.execute(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"))
            do {
                try await database.migrate()
                try await body(PostgresInstance(database: database, now: now))
            } catch {
                try? await server.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
                throw error
            }
            try await server.execute(PostgresQuery(unsafeSQL: "DROP SCHEMA \(schema) CASCADE"))
        }
    }
}

extension Logger {
    /// A logger that keeps quiet but for critical messages: a store that cannot reach its server
    /// on purpose would otherwise fill the test output with the pool's retries.
    static var quiet: Logger {
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        return logger
    }
}
