import GRDB
import LuthierDomain
import SQLMachinery

extension SQLiteDatabase {
    /// Opens (creating if needed) the workshop's database at `path`, or an in-memory one for
    /// `":memory:"`, checks that an existing one is whole, and runs every migration of
    /// ``migrator`` it has not run yet (see `SQLiteDatabase.init(path:label:migrator:…)`).
    ///
    /// - Throws: `WorkshopStoreError.corrupt` naming the path and what the check found, or
    ///   `.cannotOpen` naming the path and SQLite's reason: the workshop's words for them, with
    ///   the operator's way out.
    public convenience init(path: String, servingCorrupt: Bool = false) throws {
        try self.init(path: path, migratingUpTo: nil, servingCorrupt: servingCorrupt)
    }

    /// The same, up to and including `lastMigration` when one is given (tests build a database of
    /// an older schema with it, good only for raw SQL), waiting `writeLockWait` for a write lock
    /// another process holds.
    convenience init(
        path: String, migratingUpTo lastMigration: String?, writeLockWait: Duration = .seconds(5),
        lockWaitClock: WriteLockWait.Clock = .live, servingCorrupt: Bool = false
    ) throws {
        do {
            try self.init(
                path: path, label: "workshop", migrator: Self.migrator, migratingUpTo: lastMigration,
                writeLockWait: writeLockWait, lockWaitClock: lockWaitClock, servingCorrupt: servingCorrupt)
        } catch SQLDatabaseError.corrupt(let path, let problems) {
            throw WorkshopStoreError.corrupt(path: path, problems: problems)
        } catch SQLDatabaseError.cannotOpen(let path, let reason) {
            throw WorkshopStoreError.cannotOpen(path: path, reason: reason)
        }
    }

    /// The schema's history, oldest first. Each migration runs once per database, in its own
    /// transaction, recorded in the database itself; never edit one that has shipped — add the
    /// next ("v2-…") instead.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1-wood-stock-and-orders") { db in
            try db.execute(
                sql: """
                    CREATE TABLE wood_stock (
                        kind TEXT NOT NULL CHECK (kind IN ('body', 'fretboard')),
                        wood TEXT NOT NULL,
                        quantity INTEGER NOT NULL CHECK (quantity >= 0),
                        PRIMARY KEY (kind, wood)
                    );
                    CREATE TABLE orders (
                        number TEXT PRIMARY KEY NOT NULL,
                        access_key TEXT NOT NULL,
                        checkout_id TEXT NOT NULL UNIQUE,
                        shape TEXT NOT NULL,
                        color TEXT NOT NULL,
                        body TEXT NOT NULL,
                        fretboard TEXT NOT NULL,
                        shipping TEXT NOT NULL,
                        currency TEXT NOT NULL,
                        rate TEXT NOT NULL,
                        base_price_minor INTEGER NOT NULL,
                        additions_minor INTEGER NOT NULL,
                        shipping_minor INTEGER NOT NULL,
                        total_minor INTEGER NOT NULL
                            CHECK (total_minor = base_price_minor + additions_minor + shipping_minor),
                        status TEXT NOT NULL,
                        placed_at INTEGER NOT NULL,
                        session_key TEXT NOT NULL
                    );
                    CREATE INDEX orders_status ON orders (status);
                    """
            )
            for wood in StockedWood.allCases {
                try db.execute(
                    sql: "INSERT INTO wood_stock (kind, wood, quantity) VALUES (?, ?, ?)",
                    arguments: [wood.kind, wood.wood, WorkshopStore.initialStock[wood] ?? 0]
                )
            }
        }
        migrator.registerMigration("v2-order-lines-discounts-sessions-analytics") { db in
            try migrateToOrderLinesDiscountsSessionsAnalytics(db)
        }
        migrator.registerMigration("v3-order-stages") { db in
            try migrateToOrderStages(db)
        }
        // v4: whether a stored session is worth keeping for the full retention, or is an
        // anonymous leftover kept a day. Sessions stored before are kept as they were.
        migrator.registerMigration("v4-session-leftovers") { db in
            try db.execute(sql: "ALTER TABLE sessions ADD COLUMN worth_keeping INTEGER NOT NULL DEFAULT 1")
        }
        migrator.registerMigration("v5-stock-adjustments-stage-history-discount-codes") { db in
            try migrateToShopAdmin(db)
        }
        // v6: the workshop journal's stories, newest by id.
        migrator.registerMigration("v6-journal") { db in
            try db.execute(
                sql: """
                    CREATE TABLE journal_stories (
                        id INTEGER PRIMARY KEY AUTOINCREMENT,
                        by TEXT NOT NULL,
                        title TEXT NOT NULL,
                        url TEXT,
                        posted_at INTEGER NOT NULL
                    )
                    """)
        }
        // v7: one row the readiness probe writes, to learn whether the database takes writes now.
        migrator.registerMigration("v7-readiness-probe") { db in
            try db.execute(sql: WorkshopStore.readinessProbeTable)
        }
        // v8: the workshop floor's term, and the term each stage was moved in.
        migrator.registerMigration("v8-floor-term") { db in
            for statement in WorkshopStore.floorTermMigration { try db.execute(sql: statement) }
        }
        return migrator
    }

    /// The names of every migration, oldest first: what a fully migrated database has applied.
    static var migrationNames: [String] { migrator.migrations }

    /// v2: an order holds several guitars (`order_lines`) and may carry a discount; sessions and
    /// the cart analytics log get their tables.
    ///
    /// `orders` loses its four guitar columns and gains the discount, so it is rebuilt the way
    /// SQLite recommends for changes `ALTER TABLE` cannot make (create the new table, copy, drop
    /// the old, rename the new; <https://www.sqlite.org/lang_altertable.html#otheralter>). GRDB
    /// runs the migration in one transaction with foreign keys off and checks them all before
    /// committing, so a failure anywhere leaves the v1 database exactly as it was. Every v1 order
    /// becomes a one-line order of its guitar, quantity 1, without a discount.
    private static func migrateToOrderLinesDiscountsSessionsAnalytics(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE orders_v2 (
                    number TEXT PRIMARY KEY NOT NULL,
                    access_key TEXT NOT NULL,
                    checkout_id TEXT NOT NULL UNIQUE,
                    shipping TEXT NOT NULL,
                    currency TEXT NOT NULL,
                    rate TEXT NOT NULL,
                    base_price_minor INTEGER NOT NULL,
                    additions_minor INTEGER NOT NULL,
                    discount_minor INTEGER NOT NULL DEFAULT 0,
                    discount_code TEXT,
                    shipping_minor INTEGER NOT NULL,
                    total_minor INTEGER NOT NULL
                        CHECK (total_minor = base_price_minor + additions_minor - discount_minor + shipping_minor),
                    status TEXT NOT NULL,
                    placed_at INTEGER NOT NULL,
                    session_key TEXT NOT NULL
                );
                INSERT INTO orders_v2 (
                    number, access_key, checkout_id, shipping, currency, rate,
                    base_price_minor, additions_minor, discount_minor, discount_code, shipping_minor, total_minor,
                    status, placed_at, session_key
                )
                SELECT
                    number, access_key, checkout_id, shipping, currency, rate,
                    base_price_minor, additions_minor, 0, NULL, shipping_minor, total_minor,
                    status, placed_at, session_key
                FROM orders;

                CREATE TABLE order_lines (
                    order_number TEXT NOT NULL REFERENCES orders (number),
                    position INTEGER NOT NULL,
                    shape TEXT NOT NULL,
                    color TEXT NOT NULL,
                    body TEXT NOT NULL,
                    fretboard TEXT NOT NULL,
                    quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND 10),
                    PRIMARY KEY (order_number, position)
                );
                INSERT INTO order_lines (order_number, position, shape, color, body, fretboard, quantity)
                SELECT number, 0, shape, color, body, fretboard, 1 FROM orders;

                DROP TABLE orders;
                ALTER TABLE orders_v2 RENAME TO orders;
                CREATE INDEX orders_status ON orders (status);

                CREATE TABLE sessions (
                    key TEXT PRIMARY KEY NOT NULL,
                    revision INTEGER NOT NULL,
                    snapshot TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    used_at INTEGER NOT NULL
                );
                CREATE INDEX sessions_used_at ON sessions (used_at);

                CREATE TABLE analytics_events (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    action TEXT NOT NULL,
                    configuration TEXT,
                    occurred_at INTEGER NOT NULL,
                    session_key TEXT NOT NULL
                );
                CREATE INDEX analytics_events_action_configuration ON analytics_events (action, configuration);
                """
        )
    }

    /// v3: orders move through the workshop's stages. Each order gets `stage_started_at` (when its
    /// current stage began, in milliseconds like `placed_at`), and the one status there was,
    /// `placed`, becomes the first stage, `woodSelection`, begun when the order was placed.
    ///
    /// `ALTER TABLE … ADD COLUMN` can only add a `NOT NULL` column with a default, and a default
    /// would quietly date an order that forgot its stage to 1970, so `orders` is rebuilt as in v2
    /// (create, copy, drop, rename), in the migration's one transaction.
    private static func migrateToOrderStages(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE orders_v3 (
                    number TEXT PRIMARY KEY NOT NULL,
                    access_key TEXT NOT NULL,
                    checkout_id TEXT NOT NULL UNIQUE,
                    shipping TEXT NOT NULL,
                    currency TEXT NOT NULL,
                    rate TEXT NOT NULL,
                    base_price_minor INTEGER NOT NULL,
                    additions_minor INTEGER NOT NULL,
                    discount_minor INTEGER NOT NULL DEFAULT 0,
                    discount_code TEXT,
                    shipping_minor INTEGER NOT NULL,
                    total_minor INTEGER NOT NULL
                        CHECK (total_minor = base_price_minor + additions_minor - discount_minor + shipping_minor),
                    status TEXT NOT NULL,
                    placed_at INTEGER NOT NULL,
                    session_key TEXT NOT NULL,
                    stage_started_at INTEGER NOT NULL
                );
                INSERT INTO orders_v3 (
                    number, access_key, checkout_id, shipping, currency, rate,
                    base_price_minor, additions_minor, discount_minor, discount_code, shipping_minor, total_minor,
                    status, placed_at, session_key, stage_started_at
                )
                SELECT
                    number, access_key, checkout_id, shipping, currency, rate,
                    base_price_minor, additions_minor, discount_minor, discount_code, shipping_minor, total_minor,
                    CASE status WHEN 'placed' THEN 'woodSelection' ELSE status END, placed_at, session_key, placed_at
                FROM orders;

                DROP TABLE orders;
                ALTER TABLE orders_v3 RENAME TO orders;
                CREATE INDEX orders_status ON orders (status);
                CREATE INDEX orders_placed_at ON orders (placed_at);
                """
        )
    }

    /// v5: what the shop's admin needs kept. Every change of stock is an audited row
    /// (`stock_adjustments`: the change, the stock after it, a note, when), every stage an order
    /// reaches is a row of its history (`order_stages`), and the discount codes live in the
    /// database (`discount_codes`, one row per code whatever its case), so that they can be added
    /// and expired while the shop runs.
    ///
    /// An order placed before v5 gets the history that can be known: its wood selection from when
    /// it was placed, and its current stage from when that began; the stages between were not
    /// dated then.
    private static func migrateToShopAdmin(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE stock_adjustments (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    kind TEXT NOT NULL,
                    wood TEXT NOT NULL,
                    change INTEGER NOT NULL CHECK (change <> 0),
                    quantity_after INTEGER NOT NULL CHECK (quantity_after >= 0),
                    note TEXT NOT NULL,
                    made_at INTEGER NOT NULL,
                    FOREIGN KEY (kind, wood) REFERENCES wood_stock (kind, wood)
                );
                CREATE INDEX stock_adjustments_made_at ON stock_adjustments (made_at);

                CREATE TABLE order_stages (
                    order_number TEXT NOT NULL REFERENCES orders (number),
                    status TEXT NOT NULL,
                    started_at INTEGER NOT NULL,
                    note TEXT,
                    PRIMARY KEY (order_number, status)
                );
                INSERT INTO order_stages (order_number, status, started_at)
                SELECT number, 'woodSelection', placed_at FROM orders;
                INSERT INTO order_stages (order_number, status, started_at)
                SELECT number, status, stage_started_at FROM orders WHERE status <> 'woodSelection';

                CREATE TABLE discount_codes (
                    code TEXT PRIMARY KEY NOT NULL COLLATE NOCASE,
                    percent INTEGER NOT NULL CHECK (percent BETWEEN 1 AND 100),
                    expires_at INTEGER,
                    created_at INTEGER NOT NULL
                );
                """
        )
    }
}
