import Foundation
import GRDB
import LuthierDomain

/// The workshop's own records — wood stock, orders and their lines, stored sessions and the cart
/// analytics log — in one SQLite file, through GRDB.
///
/// SQLite gives the shop real transactions on one file with nothing to run beside it: an order
/// and the woods it takes out of stock are written together or not at all, even if the process
/// dies half-way. A file is opened in WAL mode (`DatabasePool`: readers never wait for the
/// writer); `":memory:"` opens a private in-memory database (`DatabaseQueue`) for tests. Every
/// write goes through the one serialized writer, which is what makes ordering idempotent.
///
/// The methods are synchronous (they are short SQLite calls); the live `WorkshopClient` uses the
/// asynchronous variants so that no Swift concurrency thread waits on the database.
public final class WorkshopStore: Sendable {
    /// The path given at start-up (or `":memory:"`).
    public let path: String
    /// Whether the file was there but empty (0 bytes) when the store opened it: a new shop was
    /// started in it, which the server says loudly (a shop may have been lost).
    public let startedOnEmptyFile: Bool
    /// What `PRAGMA integrity_check` found damaged when the store opened (empty when whole); only
    /// ever non-empty for a store opened `servingCorrupt`.
    public let damage: [String]
    /// How estimates follow the backlog and the woods.
    public let estimateRule: EstimateRule
    let writer: any DatabaseWriter
    let now: @Sendable () -> Date
    private let lockWait: WriteLockWait

    /// How many writes have had to wait for another connection's write lock (another process on
    /// the same file) since the store opened.
    public var lockWaits: Int { lockWait.waitCount }

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

    /// Opens (creating if needed) the database at `path`, or an in-memory one for `":memory:"`,
    /// checks that an existing one is whole (`PRAGMA integrity_check`), and runs every migration
    /// it has not run yet.
    ///
    /// - Parameters:
    ///   - estimateRule: how estimates are computed; the documented standard by default.
    ///   - now: the clock orders, sessions and analytics are stamped with; tests pass a fixed time.
    ///   - servingCorrupt: opens a file the check finds damaged all the same (the operator's
    ///     explicit choice, to read out what is left); the damage is in `damage`.
    /// - Throws: `WorkshopStoreError.corrupt` naming the path and what the check found, or
    ///   `.cannotOpen` naming the path and SQLite's reason.
    public convenience init(
        path: String,
        estimateRule: EstimateRule = .standard,
        now: @escaping @Sendable () -> Date = { Date() },
        servingCorrupt: Bool = false
    ) throws {
        try self.init(
            path: path, estimateRule: estimateRule, now: now, migratingUpTo: nil, servingCorrupt: servingCorrupt)
    }

    /// As the public initializer, but migrating only up to (and including) the migration named
    /// `lastMigration` when one is given: tests build a database of an older schema with it, to
    /// check that the next migrations carry its rows over. Such a store is only good for raw SQL.
    ///
    /// `writeLockWait` bounds how long the writes wait, together, for a write lock another process
    /// holds (see `WriteLockWait`); tests shorten it, or measure it on a clock of their own.
    init(
        path: String,
        estimateRule: EstimateRule = .standard,
        now: @escaping @Sendable () -> Date = { Date() },
        migratingUpTo lastMigration: String?,
        writeLockWait: Duration = .seconds(5),
        lockWaitClock: WriteLockWait.Clock = .live,
        servingCorrupt: Bool = false
    ) throws {
        self.path = path
        // A file of 0 bytes is a new database to SQLite; where a shop was expected, that is a
        // shop lost (a failed copy, a truncation). The shop starts, and the caller says so loudly.
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
        startedOnEmptyFile = size == 0
        self.estimateRule = estimateRule
        self.now = now
        var configuration = Configuration()
        configuration.label = "workshop"
        // Another process (a second server, an admin's sqlite3) may hold the write lock briefly;
        // past `writeLockWait` the writes give up, all of them, rather than each waiting in turn.
        let lockWait = WriteLockWait(limit: writeLockWait, clock: lockWaitClock)
        self.lockWait = lockWait
        configuration.busyMode = .callback { tries in lockWait.shouldRetry(numberOfTries: tries) }
        do {
            let writer: any DatabaseWriter =
                if path == ":memory:" {
                    try DatabaseQueue(configuration: configuration)
                } else {
                    try DatabasePool(path: path, configuration: configuration)
                }
            // GRDB sets WAL databases to `synchronous = NORMAL`: a commit then survives a crash of
            // the process but not a power cut. Every commit here is something the shop said yes
            // to (an order, a customer's change), so each one is synced before it is answered.
            try writer.writeWithoutTransaction { try $0.execute(sql: "PRAGMA synchronous = FULL") }
            // A damaged page is found now, not by the customer whose order lands on it.
            let problems = try Self.integrityProblems(of: writer)
            damage = problems
            if !damage.isEmpty, !servingCorrupt {
                throw WorkshopStoreError.corrupt(path: path, problems: damage)
            }
            if let lastMigration {
                try Self.migrator.migrate(writer, upTo: lastMigration)
            } else {
                try Self.migrator.migrate(writer)
            }
            self.writer = writer
        } catch let error as WorkshopStoreError {
            throw error
        } catch {
            throw WorkshopStoreError.cannotOpen(path: path, reason: Self.reason(error))
        }
    }

    /// Whether the workshop can build `guitar` now: both its body blank and its fretboard must be
    /// in stock. When not, `missing` names what ran out ("Black Limba body blanks").
    public func availability(for guitar: Guitar) throws -> Availability {
        try availability(for: [CartLine(guitar: guitar, quantity: 1)])[0]
    }

    /// Whether each line of an order can be built, in line order, judged against what the whole
    /// order needs: two lines that each need the last Black Limba blank are both unavailable,
    /// because the workshop cannot build both (see `availability(of:in:)`).
    public func availability(for lines: [CartLine]) throws -> [Availability] {
        try writer.read { db in try Self.availability(of: lines, in: db) }
    }

    /// How long `guitar` would take, by `estimateRule`, from the open orders and its woods' stock.
    public func estimate(for guitar: Guitar) throws -> BuildEstimate {
        try writer.read { db in try self.estimate(for: guitar, in: db) }
    }

    /// How long an order of `lines` would take: the longest of its guitars' estimates, because
    /// the guitars of one order are built side by side and ship together.
    public func estimate(for lines: [CartLine]) throws -> BuildEstimate {
        try writer.read { db in try self.estimate(for: lines, in: db) }
    }

    /// The ways the workshop ships an order of `lines`: Pickup, Ground, Express at their list
    /// prices. Every order ships the same ways; the lines are the argument so that could change.
    public func shippingOptions(for lines: [CartLine]) -> [ShippingOption] {
        ShippingOption.standard
    }

    /// How many pieces of `wood` are in stock (0 for a wood never stocked).
    public func stock(of wood: StockedWood) throws -> Int {
        try writer.read { db in try Self.quantity(of: wood, in: db) }
    }

    /// Sets the stock of `wood`, for tests and the workshop's admin. A negative quantity is
    /// refused by the table's `CHECK` constraint (the error is thrown).
    public func setStock(of wood: StockedWood, to quantity: Int) throws {
        try writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO wood_stock (kind, wood, quantity) VALUES (?, ?, ?)
                    ON CONFLICT (kind, wood) DO UPDATE SET quantity = excluded.quantity
                    """,
                arguments: [wood.kind, wood.wood, quantity]
            )
        }
    }

    /// Orders the workshop has taken and not finished (not shipped or ready for pickup): its
    /// backlog.
    public func openOrderCount() throws -> Int {
        try writer.read { db in try Self.openOrderCount(in: db) }
    }

    // MARK: - Inside a database access

    /// Each line's availability, in line order, as ``WoodNeed/availability(of:stock:)`` judges
    /// it from the stock this reads.
    static func availability(of lines: [CartLine], in db: Database) throws -> [Availability] {
        WoodNeed.availability(of: lines, stock: try stock(of: WoodNeed.of(lines), in: db))
    }

    /// The stock of each wood `needs` name.
    static func stock(of needs: [WoodNeed], in db: Database) throws -> [StockedWood: Int] {
        var stock: [StockedWood: Int] = [:]
        for need in needs { stock[need.wood] = try quantity(of: need.wood, in: db) }
        return stock
    }

    func estimate(for guitar: Guitar, in db: Database) throws -> BuildEstimate {
        estimateRule.estimate(
            openOrders: try Self.openOrderCount(in: db),
            bodyStock: try Self.quantity(of: .body(guitar.body), in: db),
            fretboardStock: try Self.quantity(of: .fretboard(guitar.fretboard), in: db)
        )
    }

    /// The longest of the estimates of the order's distinct guitars; an order of nothing takes
    /// what the backlog alone takes (no wood of it can be scarce).
    func estimate(for lines: [CartLine], in db: Database) throws -> BuildEstimate {
        var longest: BuildEstimate?
        var seen: Set<Guitar> = []
        for line in lines where seen.insert(line.guitar).inserted {
            let estimate = try estimate(for: line.guitar, in: db)
            if estimate.months > longest?.months ?? Int.min { longest = estimate }
        }
        if let longest { return longest }
        return estimateRule.estimate(
            openOrders: try Self.openOrderCount(in: db), bodyStock: Int.max, fretboardStock: Int.max)
    }

    static func quantity(of wood: StockedWood, in db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT quantity FROM wood_stock WHERE kind = ? AND wood = ?",
            arguments: [wood.kind, wood.wood]
        ) ?? 0
    }

    static func openOrderCount(in db: Database) throws -> Int {
        try Int.fetchOne(
            db,
            sql: "SELECT COUNT(*) FROM orders WHERE status IN \(inProgressStatuses)"
        ) ?? 0
    }

    /// What `PRAGMA integrity_check` finds wrong with the database, one finding a line (at most
    /// 20); empty when it is whole. A check that stops on the damage itself reports that.
    static func integrityProblems(of writer: any DatabaseWriter) throws -> [String] {
        do {
            let rows = try writer.read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check(20)") }
            return rows == ["ok"] ? [] : rows.flatMap { $0.split(separator: "\n").map(String.init) }
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            return [error.message ?? "database disk image is malformed"]
        }
    }

    /// The one-row table the readiness probe writes (the same words on SQLite and PostgreSQL).
    static let readinessProbeTable = """
        CREATE TABLE readiness_probe (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            probed_at BIGINT NOT NULL
        )
        """

    /// Why the file does not take a write now, or nil when it does: one row of `readiness_probe`
    /// written and committed (so a full disk, a read-only file or another process's lock shows),
    /// waiting for a lock as every write does.
    public func writeProblem() async -> String? {
        let now = WorkshopPace.milliseconds(self.now())
        do {
            try await asyncWrite { db in
                try db.execute(
                    sql: """
                        INSERT INTO readiness_probe (id, probed_at) VALUES (1, ?)
                        ON CONFLICT (id) DO UPDATE SET probed_at = excluded.probed_at
                        """, arguments: [now])
            }
            return nil
        } catch {
            return "the database \(path) does not take writes (\(Self.reason(error)))"
        }
    }

    /// Reads on the database without holding a Swift concurrency thread.
    func asyncRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.read(value)
    }

    /// Writes in one transaction without holding a Swift concurrency thread while the writer is busy.
    func asyncWrite<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.write(value)
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
