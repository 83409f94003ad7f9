import Foundation
import LuthierDomain
import LuthierFeatures
import SQLMachinery

/// The workshop's own records — wood stock, orders with their lines and stages, stored sessions,
/// discount codes, the journal and the cart analytics log — on either database.
///
/// Each operation is written once, over ``SQLDatabase``: the SQLite file (``SQLiteDatabase``,
/// the embedded default) or PostgreSQL (``PostgreSQLDatabase``, for several instances). The
/// store only reads and writes: what an order needs, whether stock covers it, the estimate, order
/// numbers and keys, and the stage step are `LuthierDomain`'s.
public final class WorkshopStore: Sendable {
    let database: any SQLDatabase
    /// How estimates follow the backlog and the woods.
    public let estimateRule: EstimateRule
    /// The clock orders, sessions and analytics are stamped with; tests pass a fixed time.
    let now: @Sendable () -> Date

    /// The store on the SQLite file `database`.
    public convenience init(
        sqlite database: SQLiteDatabase, estimateRule: EstimateRule = .standard,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(database: database, estimateRule: estimateRule, now: now)
    }

    /// The store on the PostgreSQL `database` (migrated with its `migrate()` before use).
    public convenience init(
        postgres database: PostgreSQLDatabase, estimateRule: EstimateRule = .standard,
        now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.init(database: database, estimateRule: estimateRule, now: now)
    }

    /// The store on an SQLite file at `path` (or `":memory:"`), opened and migrated as
    /// ``SQLiteDatabase/init(path:servingCorrupt:)`` does.
    public convenience init(
        path: String, estimateRule: EstimateRule = .standard, now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.init(database: try SQLiteDatabase(path: path), estimateRule: estimateRule, now: now)
    }

    /// Session saves made at once share one statement and one commit.
    let sessionSaves: GroupCommit<SessionSave, SessionSaveOutcome>

    /// Orders placed at once share one transaction and one commit, each in a savepoint of its own.
    let orderCommits: GroupCommit<OrderPlacement, Result<PlacedOrder, any Error>>

    /// The woods out of stock after each order placed here, for ``soldOut(afterOrder:)``.
    let soldOutAfterOrders = OrderHandOff<Set<StockedWood>>()

    /// - Parameter ordersQueued: told how many orders wait for the one being written, each time
    ///   one more does (for tests, which await it to know what goes in one commit).
    init(
        database: any SQLDatabase, estimateRule: EstimateRule, now: @escaping @Sendable () -> Date,
        ordersQueued: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.database = database
        self.estimateRule = estimateRule
        self.now = now
        sessionSaves = GroupCommit { saves in try await Self.write(saves, on: database, now: now) }
        // At most 32 orders a commit: each is a subtransaction on PostgreSQL, whose backends
        // track 64 of them per transaction before other transactions' snapshots grow costly.
        orderCommits = GroupCommit(limit: 32, queued: ordersQueued) { placements in
            try await Self.place(placements, on: database, now: now)
        }
    }

    /// The stock a new database starts with, per wood, as the first migration seeds it.
    ///
    /// Bodies: Mahogany 40, Swamp Ash 25, Koa 6, Black Limba 3.
    /// Fretboards: Rosewood 50, Birdseye Maple 12, Ebony 8, Black Limba 2.
    ///
    /// The plain woods are plentiful; Black Limba is scarce on purpose, so that a few orders make a
    /// build "Currently unavailable" for real (and, with ≤ 5 left, longer to estimate).
    public static let initialStock: [StockedWood: Int] = [
        .body(.mahogany): 40,
        .body(.swampAsh): 25,
        .body(.koa): 6,
        .body(.blackLimba): 3,
        .fretboard(.rosewood): 50,
        .fretboard(.birdseyeMaple): 12,
        .fretboard(.ebony): 8,
        .fretboard(.blackLimba): 2,
    ]

    /// Whether the workshop can build each line of an order, in line order, judged against what
    /// the whole order needs: two lines that each need the last Black Limba blank are both
    /// unavailable, because the workshop cannot build both (``WoodNeed``).
    public func availability(for lines: [CartLine]) async throws -> [Availability] {
        WoodNeed.availability(of: lines, stock: try await Self.stock(from: database.read(Self.allStock)))
    }

    /// How long an order of `lines` would take, by ``estimateRule``: the longest of its guitars'
    /// estimates, because the guitars of one order are built side by side and ship together. An
    /// order of nothing takes what the backlog alone takes.
    public func estimate(for lines: [CartLine]) async throws -> BuildEstimate {
        let rows = try await database.read(Self.backlogAndStock)
        return estimate(for: lines, openOrders: try Self.backlog(in: rows), stock: try Self.stock(from: rows))
    }

    /// ``availability(for:)`` and ``estimate(for:)`` from one read of the stock and the backlog:
    /// what a checkout asks, in one statement.
    public func availabilityAndEstimate(for lines: [CartLine]) async throws -> ([Availability], BuildEstimate) {
        let rows = try await database.read(Self.backlogAndStock)
        let stock = try Self.stock(from: rows)
        return (
            WoodNeed.availability(of: lines, stock: stock),
            estimate(for: lines, openOrders: try Self.backlog(in: rows), stock: stock)
        )
    }

    private static func backlog(in rows: [SQLRow]) throws -> Int {
        try rows.first { try $0["kind"] == backlogKind }?["quantity"] ?? 0
    }

    private func estimate(for lines: [CartLine], openOrders: Int, stock: [StockedWood: Int]) -> BuildEstimate {
        var longest: BuildEstimate?
        var seen: Set<Guitar> = []
        for guitar in lines.map(\.guitar) where seen.insert(guitar).inserted {
            let estimate = estimateRule.estimate(
                openOrders: openOrders, bodyStock: stock[.body(guitar.body)] ?? 0,
                fretboardStock: stock[.fretboard(guitar.fretboard)] ?? 0)
            if estimate.months > longest?.months ?? Int.min { longest = estimate }
        }
        return longest ?? estimateRule.estimate(openOrders: openOrders, bodyStock: Int.max, fretboardStock: Int.max)
    }

    /// How many pieces of `wood` are in stock (0 for a wood never stocked).
    public func stock(of wood: StockedWood) async throws -> Int {
        try await Self.stock(from: database.read(Self.allStock))[wood] ?? 0
    }

    /// Sets the stock of `wood`, for tests. A negative quantity is refused by the table's `CHECK`
    /// constraint (the error is thrown).
    public func setStock(of wood: StockedWood, to quantity: Int) async throws {
        try await database.write(
            """
            INSERT INTO wood_stock (kind, wood, quantity) VALUES (\(wood.kind), \(wood.wood), \(quantity))
            ON CONFLICT (kind, wood) DO UPDATE SET quantity = excluded.quantity
            """)
    }

    /// Orders the workshop has taken and not finished (not shipped or ready for pickup): its
    /// backlog.
    public func openOrderCount() async throws -> Int {
        try await database.read { connection in try await Self.openOrderCount(on: connection) }
    }

    /// Why the database does not take a write now, or nil when it does: one row of
    /// `readiness_probe` written and committed (so a full disk, a read-only file, another
    /// process's lock or a database refusing writes shows), waiting for a lock as every write does.
    public func writeProblem() async -> String? {
        do {
            try await database.write(
                """
                INSERT INTO readiness_probe (id, probed_at) VALUES (1, \(Self.milliseconds(now())))
                ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at
                """)
            return nil
        } catch {
            return "the database \(database) does not take writes (\(database.reason(error)))"
        }
    }

    // MARK: - Inside a transaction

    /// Every stock line, in one statement (there are eight).
    static let allStock: SQLStatement = "SELECT kind, wood, quantity FROM wood_stock"

    /// The backlog (how many orders are in progress, in a row of its own kind) and every stock
    /// line: what an estimate reads, in one statement, so one moment of the database.
    static let backlogAndStock: SQLStatement = """
        SELECT \(backlogKind) AS kind, '' AS wood, COUNT(*) AS quantity FROM orders
        WHERE status IN \(list: inProgressStatuses)
        UNION ALL SELECT kind, wood, quantity FROM wood_stock
        """

    /// The kind of ``backlogAndStock``'s backlog row: no stock line's.
    static let backlogKind = "backlog"

    /// The quantity of each stock line in `rows` of ``allStock`` this version knows.
    static func stock(from rows: [SQLRow]) throws -> [StockedWood: Int] {
        var stock: [StockedWood: Int] = [:]
        for row in rows {
            if let wood = try stockedWood(in: row) { stock[wood] = try row["quantity"] }
        }
        return stock
    }

    /// The stock line a row's `kind` and `wood` columns name, if this version knows it.
    static func stockedWood(in row: SQLRow) throws -> StockedWood? {
        StockedWood(id: "\(try row["kind"] as String)/\(try row["wood"] as String)")
    }

    static func openOrderCount(on connection: any SQLConnection) async throws -> Int {
        try await connection.value("SELECT COUNT(*) FROM orders WHERE status IN \(list: inProgressStatuses)") ?? 0
    }

    /// The raw values of the stages in progress (the domain's `OrderStatus.isFinished`): a status
    /// this version does not know is neither in progress nor moved.
    static let inProgressStatuses = OrderStatus.allCases.filter { !$0.isFinished }.map(\.rawValue)

    /// The one-row table the readiness probe writes (the same words on SQLite and PostgreSQL).
    static let readinessProbeTable = """
        CREATE TABLE readiness_probe (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            probed_at BIGINT NOT NULL
        )
        """

    /// The workshop floor's term (``FloorTerm``): one row, raised by each instance that takes the
    /// lead, and the term each stage was moved in. The same words on SQLite and PostgreSQL.
    static let floorTermMigration = [
        "CREATE TABLE floor_term (id INTEGER PRIMARY KEY CHECK (id = 1), term BIGINT NOT NULL)",
        "INSERT INTO floor_term (id, term) VALUES (1, 0)",
        // Null: moved by an instance that leads alone, or before terms were kept.
        "ALTER TABLE order_stages ADD COLUMN term BIGINT",
        // The floor's questions (what is due, when the next stage ends) read only the orders in
        // progress, due first, however many the workshop has finished.
        "CREATE INDEX orders_by_status_and_stage_start ON orders (status, stage_started_at)",
    ]

    static func milliseconds(_ date: Date) -> Int64 { WorkshopPace.milliseconds(date) }

    static func date(milliseconds: Int64) -> Date { WorkshopPace.date(milliseconds: milliseconds) }
}
