import AsyncHTTPClient
import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import SQLMachinery

extension LuthierEnvironment {
    /// The environment of a real server: wall-clock time, random checkout ids, and the given
    /// workshop, exchange rates, session store and analytics log.
    public static func live(
        workshop: WorkshopClient, exchangeRates: ExchangeRateClient, sessions: SessionStore, analytics: AnalyticsClient
    ) -> LuthierEnvironment {
        LuthierEnvironment(
            clock: ContinuousClock(),
            now: { Date() },
            workshop: workshop,
            exchangeRates: exchangeRates,
            sessions: sessions,
            analytics: analytics,
            makeID: { UUID().uuidString.lowercased() }
        )
    }
}

/// The one place where the live effects are wired: the workshop's store — which also keeps the
/// sessions and the cart analytics, so one database holds everything that must survive a
/// restart — and the exchange rates (embedded, or an upstream provider with its HTTP client).
///
/// The store is chosen once, here, from `--database`: a path is an SQLite file (the default, one
/// process on one machine); a `postgres://` URL is a PostgreSQL database several instances can
/// share. Nothing past this point asks which it is.
public struct LiveSystem: Sendable {
    /// The database the shop runs on.
    public enum Database: Sendable {
        case sqlite(SQLiteDatabase)
        case postgres(PostgreSQLDatabase)
    }

    public let environment: LuthierEnvironment
    /// The workshop as its owner runs it, on the same store. Apart from the environment, which
    /// every session holds copies of: the admin's dozen calls would cost each session their bytes.
    public let admin: WorkshopAdminClient
    /// The workshop journal's stories, on the same store.
    public let journal: JournalClient
    /// Another Hacker-News-compatible API for the journal's reader (`--news-url`); nil reads the
    /// shop's own journal.
    public let news: NewsClient?
    public let database: Database
    /// The workshop's records on that database.
    public let store: WorkshopStore
    private let httpClient: HTTPClient?
    /// Which instance on the PostgreSQL database runs the workshop floor; nil for SQLite.
    private let floorLeader: PostgresFloorLeader<ContinuousClock>?
    private let readinessProbe: ReadinessProbe<ContinuousClock>

    /// - Parameters:
    ///   - database: an SQLite file (created and migrated if needed), `:memory:`, or a
    ///     `postgres://user:password@host:port/database` URL (migrated in ``running(_:)``).
    ///   - ratesURL: an upstream rates provider; nil uses the embedded default rates.
    ///   - simulateLatency: makes the workshop take the original app's times (for demos).
    ///   - shopTaps: the shop's tap recorder (its inspector), which the rates provider records into.
    ///   - postgresTimeouts: how long a PostgreSQL database and this instance wait for each other.
    public init(
        database: String, ratesURL: URL?, newsURL: URL? = nil, simulateLatency: Bool, logger: Logger,
        shopTaps: TapRecorder? = nil, servingCorrupt: Bool = false,
        postgresTimeouts: PostgresTimeouts = PostgresTimeouts()
    ) throws {
        let clock = ContinuousClock()
        let latency = SimulatedLatency(clock: clock, isEnabled: simulateLatency)
        let workshop: WorkshopClient
        let sessions: SessionStore
        if PostgresLocation.isPostgres(database) {
            let postgres = PostgreSQLDatabase(
                location: try PostgresLocation(url: database), logger: logger, timeouts: postgresTimeouts)
            self.database = .postgres(postgres)
            let store = WorkshopStore(postgres: postgres)
            self.store = store
            workshop = .live(store: store, latency: latency, changesElsewhere: { postgres.changes() })
            sessions = .live(store: store, postgres: postgres)
            floorLeader = PostgresFloorLeader(
                location: postgres.location, logger: logger, clock: clock, timeouts: postgresTimeouts,
                beginTerm: { try await store.beginFloorTerm() })
        } else {
            let sqlite = try SQLiteDatabase(path: database, servingCorrupt: servingCorrupt)
            self.database = .sqlite(sqlite)
            store = WorkshopStore(sqlite: sqlite)
            workshop = .live(store: store, latency: latency)
            sessions = .live(store: store)
            floorLeader = nil
        }
        let analytics = AnalyticsClient.live(store: store)
        admin = .live(store: store)
        journal = .live(store: store)
        readinessProbe = ReadinessProbe(clock: clock) { [store] in await store.writeProblem() }
        let exchangeRates: ExchangeRateClient
        // One HTTP client for both upstreams, made only when one is configured.
        let httpClient = ratesURL != nil || newsURL != nil ? HTTPClient(eventLoopGroupProvider: .singleton) : nil
        self.httpClient = httpClient
        news = newsURL.flatMap { url in httpClient.map { NewsClient.http(baseURL: url, httpClient: $0) } }
        if let ratesURL, let httpClient {
            exchangeRates = .http(
                provider: HTTPExchangeRateProvider(
                    url: ratesURL, httpClient: httpClient, clock: clock, logger: logger,
                    tap: shopTaps.map { Tap($0, "rates") }))
        } else {
            exchangeRates = .embedded()
        }
        var environment = LuthierEnvironment.live(
            workshop: workshop, exchangeRates: exchangeRates, sessions: sessions, analytics: analytics)
        environment.taps = shopTaps
        self.environment = environment
    }

    /// Runs `body` with the store ready: for PostgreSQL, its connection pool running beside
    /// `body` (and stopped after it) and its schema brought up to date first; SQLite needs
    /// nothing beside it.
    public func running<T>(_ body: () async throws -> T) async throws -> T {
        guard case .postgres(let postgres) = database else { return try await body() }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await postgres.run() }
            if let floorLeader { group.addTask { await floorLeader.run() } }
            defer { group.cancelAll() }
            try await postgres.migrate()
            return try await body()
        }
    }

    /// The key session ids are signed with, shared by every instance on the database (made by the
    /// first to ask); nil for an SQLite file, which one process serves (a key of its own will do).
    public func sharedSessionIDKey() async throws -> [UInt8]? {
        guard case .postgres(let postgres) = database else { return nil }
        return try await postgres.sharedSecret(named: "session-id-key")
    }

    /// Adds each of `codes` the database does not hold yet, and returns every stored code.
    public func seedDiscountCodes(_ codes: [DiscountCode]) async throws -> [DiscountCode] {
        try await store.seedDiscountCodes(codes)
    }

    /// How often a write waited for another process's lock on the SQLite file (PostgreSQL's own
    /// waits are the server's to report: 0 here).
    public var lockWaits: Int {
        switch database {
        case .sqlite(let sqlite): sqlite.lockWaits
        case .postgres: 0
        }
    }

    /// Why this instance should not be sent requests now, or nil when it may: the database must
    /// take a write (a full disk, a read-only file, another process's lock or a database refusing
    /// writes all fail it), asked at most once a second and told within a second
    /// (`ReadinessProbe`).
    public var readiness: @Sendable () async -> String? {
        { [readinessProbe] in await readinessProbe.problem() }
    }

    /// When this instance runs the workshop floor's stage timer: always on SQLite; on PostgreSQL
    /// while it holds the leader's lock (`PostgresFloorLeader`).
    public var floorLeadership: FloorLeadership { floorLeader?.leadership ?? .always }

    /// How the kiosk's showcase reaches the other instances on the database; nil for an SQLite
    /// file, which one process serves.
    public var showcase: ShowcaseClient? {
        switch database {
        case .sqlite: nil
        case .postgres(let postgres): .live(postgres: postgres)
        }
    }

    /// What the operator must hear at start about the database: an empty file where a shop was
    /// expected, a damaged one served as asked. Empty when all is well.
    public var warnings: [String] {
        guard case .sqlite(let sqlite) = database else { return [] }
        var warnings: [String] = []
        if sqlite.startedOnEmptyFile {
            warnings.append(
                "The database file \(sqlite.path) was empty (0 bytes): a new shop was started in it. If a shop "
                    + "was expected here, stop the server and restore the file from a backup.")
        }
        if !sqlite.damage.isEmpty {
            warnings.append(
                "Serving the damaged database \(sqlite.path), as --serve-corrupt-database asked. SQLite's integrity "
                    + "check: \(sqlite.damage.prefix(3).joined(separator: "; ")). Restore it from a backup soon.")
        }
        return warnings
    }

    /// What `--database` named, without a password.
    public var databaseDescription: String {
        "\(store.database)"
    }

    /// Releases the HTTP client, after the server has stopped.
    public func shutdown() async throws {
        try await httpClient?.shutdown()
    }
}
