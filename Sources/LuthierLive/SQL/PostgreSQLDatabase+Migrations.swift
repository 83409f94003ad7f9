import Logging
import LuthierDomain
import PostgresNIO
import SQLMachinery

extension PostgreSQLDatabase {
    /// Brings the schema up to date (``migrations``), waiting as long as another instance
    /// migrates.
    ///
    /// - Throws: `WorkshopStoreError.cannotOpen` naming the database (not its password) and
    ///   PostgreSQL's reason.
    public func migrate() async throws {
        do {
            try await probe()
            // Start-up may wait for another instance's migration: a longer bound than a request's.
            try await write(lock: .migrations, within: Self.migrationTimeout) { connection in
                try await Self.migrate(on: connection)
            }
        } catch {
            throw WorkshopStoreError.cannotOpen(path: location.description, reason: Self.reason(error))
        }
    }

    /// How long start-up waits to migrate (behind another instance's migration, say).
    static let migrationTimeout = Duration.seconds(120)

    /// The schema's history, oldest first, each a list of statements run in the migration's one
    /// transaction and recorded in `luthier_migrations`. Never edit one that has shipped; add the
    /// next.
    ///
    /// The first is the SQLite store's schema as its five migrations left it, in PostgreSQL's
    /// words: money in minor units (`BIGINT`), times in milliseconds, the checkout id `UNIQUE`,
    /// sessions under the SHA-256 of their id with a revision, analytics append-only. Discount
    /// codes are unique whatever their case through an index on `lower(code)` (SQLite's
    /// `COLLATE NOCASE`), and a stage history's order is its own identity column (SQLite's rowid).
    static let migrations: [(name: String, statements: [String])] = [
        (
            "v1-workshop",
            [
                """
                CREATE TABLE wood_stock (
                    kind TEXT NOT NULL CHECK (kind IN ('body', 'fretboard')),
                    wood TEXT NOT NULL,
                    quantity INTEGER NOT NULL CHECK (quantity >= 0),
                    PRIMARY KEY (kind, wood)
                )
                """,
                """
                CREATE TABLE orders (
                    number TEXT PRIMARY KEY,
                    access_key TEXT NOT NULL,
                    checkout_id TEXT NOT NULL UNIQUE,
                    shipping TEXT NOT NULL,
                    currency TEXT NOT NULL,
                    rate TEXT NOT NULL,
                    base_price_minor BIGINT NOT NULL,
                    additions_minor BIGINT NOT NULL,
                    discount_minor BIGINT NOT NULL DEFAULT 0,
                    discount_code TEXT,
                    shipping_minor BIGINT NOT NULL,
                    total_minor BIGINT NOT NULL
                        CHECK (total_minor = base_price_minor + additions_minor - discount_minor + shipping_minor),
                    status TEXT NOT NULL,
                    placed_at BIGINT NOT NULL,
                    session_key TEXT NOT NULL,
                    stage_started_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX orders_status ON orders (status)",
                "CREATE INDEX orders_placed_at ON orders (placed_at)",
                """
                CREATE TABLE order_lines (
                    order_number TEXT NOT NULL REFERENCES orders (number),
                    position INTEGER NOT NULL,
                    shape TEXT NOT NULL,
                    color TEXT NOT NULL,
                    body TEXT NOT NULL,
                    fretboard TEXT NOT NULL,
                    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10),
                    PRIMARY KEY (order_number, position)
                )
                """,
                """
                CREATE TABLE order_stages (
                    id BIGINT GENERATED ALWAYS AS IDENTITY,
                    order_number TEXT NOT NULL REFERENCES orders (number),
                    status TEXT NOT NULL,
                    started_at BIGINT NOT NULL,
                    note TEXT,
                    PRIMARY KEY (order_number, status)
                )
                """,
                """
                CREATE TABLE stock_adjustments (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    kind TEXT NOT NULL,
                    wood TEXT NOT NULL,
                    change INTEGER NOT NULL CHECK (change <> 0),
                    quantity_after INTEGER NOT NULL CHECK (quantity_after >= 0),
                    note TEXT NOT NULL,
                    made_at BIGINT NOT NULL,
                    FOREIGN KEY (kind, wood) REFERENCES wood_stock (kind, wood)
                )
                """,
                "CREATE INDEX stock_adjustments_made_at ON stock_adjustments (made_at)",
                """
                CREATE TABLE discount_codes (
                    code TEXT NOT NULL,
                    percent INTEGER NOT NULL CHECK (percent BETWEEN 1 AND 100),
                    expires_at BIGINT,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE UNIQUE INDEX discount_codes_code ON discount_codes (lower(code))",
                """
                CREATE TABLE sessions (
                    key TEXT PRIMARY KEY,
                    revision BIGINT NOT NULL,
                    snapshot TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    used_at BIGINT NOT NULL,
                    worth_keeping BOOLEAN NOT NULL
                )
                """,
                "CREATE INDEX sessions_used_at ON sessions (used_at)",
                """
                CREATE TABLE analytics_events (
                    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                    action TEXT NOT NULL,
                    configuration TEXT,
                    occurred_at BIGINT NOT NULL,
                    session_key TEXT NOT NULL
                )
                """,
                "CREATE INDEX analytics_events_action_configuration ON analytics_events (action, configuration)",
            ]
        ),
        (
            // Secrets every instance must share, made by the first that needs one (the key session
            // ids are signed with), as hex text.
            "v2-shared-secrets",
            ["CREATE TABLE shared_secrets (name TEXT PRIMARY KEY, secret TEXT NOT NULL)"]
        ),
        (
            // The workshop journal's stories, newest by id.
            "v3-journal",
            [
                """
                CREATE TABLE journal_stories (
                    id BIGSERIAL PRIMARY KEY,
                    by TEXT NOT NULL,
                    title TEXT NOT NULL,
                    url TEXT,
                    posted_at BIGINT NOT NULL
                )
                """
            ]
        ),
        (
            // One row the readiness probe writes, to learn whether the database takes writes now.
            "v4-readiness-probe",
            [WorkshopStore.readinessProbeTable]
        ),
        (
            // The workshop floor's term, and the term each stage was moved in.
            "v5-floor-term",
            WorkshopStore.floorTermMigration
        ),
    ]

    /// Runs every migration not yet recorded, inside the caller's transaction (which holds the
    /// migrations' lock), and seeds the stock of a new database as the SQLite file's first
    /// migration does.
    static func migrate(on connection: any SQLConnection) async throws {
        try await connection.run(
            "CREATE TABLE IF NOT EXISTS luthier_migrations (name TEXT PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL)")
        let applied = Set(
            try await connection.rows("SELECT name FROM luthier_migrations").map { try $0["name"] as String })
        for migration in migrations where !applied.contains(migration.name) {
            for statement in migration.statements { try await connection.run("\(sql: statement)") }
            if migration.name == "v1-workshop" {
                for wood in StockedWood.allCases {
                    try await connection.run(
                        """
                        INSERT INTO wood_stock (kind, wood, quantity)
                        VALUES (\(wood.kind), \(wood.wood), \(WorkshopStore.initialStock[wood] ?? 0))
                        """)
                }
            }
            try await connection.run(
                "INSERT INTO luthier_migrations (name, applied_at) VALUES (\(migration.name), now())")
        }
    }

    /// The migrations this database has run, oldest first (for tests and diagnostics).
    public func appliedMigrations() async throws -> [String] {
        try await read("SELECT name FROM luthier_migrations ORDER BY applied_at, name").map { try $0["name"] }
    }
}
