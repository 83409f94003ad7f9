import GRDB

extension WorkshopStore {
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
                    arguments: [wood.kind, wood.wood, initialStock[wood] ?? 0]
                )
            }
        }
        return migrator
    }

    /// The migrations this database has run, oldest first (for diagnostics and tests).
    func appliedMigrations() throws -> [String] {
        try writer.read { db in try Self.migrator.appliedMigrations(db) }
    }

    /// The tables of the schema, SQLite's and GRDB's own left out.
    func tableNames() throws -> Set<String> {
        try writer.read { db in
            Set(
                try String.fetchAll(
                    db,
                    sql: """
                        SELECT name FROM sqlite_master
                        WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'grdb_%'
                        """
                )
            )
        }
    }
}
