import Foundation
import GRDB
import LuthierDomain

/// The workshop's own records — wood stock and orders — in one SQLite file, through GRDB.
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
    /// How estimates follow the backlog and the woods.
    public let estimateRule: EstimateRule
    let writer: any DatabaseWriter
    let now: @Sendable () -> Date

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
    /// and runs every migration it has not run yet.
    ///
    /// - Parameters:
    ///   - estimateRule: how estimates are computed; the documented standard by default.
    ///   - now: the clock orders are stamped with; tests pass a fixed time.
    /// - Throws: `WorkshopStoreError.cannotOpen` naming the path and SQLite's reason.
    public init(
        path: String,
        estimateRule: EstimateRule = .standard,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        self.path = path
        self.estimateRule = estimateRule
        self.now = now
        var configuration = Configuration()
        configuration.label = "workshop"
        // Another process (a second server, an admin's sqlite3) may hold the write lock briefly.
        configuration.busyMode = .timeout(5)
        do {
            let writer: any DatabaseWriter =
                if path == ":memory:" {
                    try DatabaseQueue(configuration: configuration)
                } else {
                    try DatabasePool(path: path, configuration: configuration)
                }
            try Self.migrator.migrate(writer)
            self.writer = writer
        } catch {
            throw WorkshopStoreError.cannotOpen(path: path, reason: Self.reason(error))
        }
    }

    /// Whether the workshop can build `guitar` now: both its body blank and its fretboard must be
    /// in stock. When not, `missing` names what ran out ("Black Limba body blanks").
    public func availability(for guitar: Guitar) throws -> Availability {
        try writer.read { db in try Self.availability(of: guitar, in: db) }
    }

    /// How long `guitar` would take, by `estimateRule`, from the open orders and its woods' stock.
    public func estimate(for guitar: Guitar) throws -> BuildEstimate {
        try writer.read { db in try self.estimate(for: guitar, in: db) }
    }

    /// The ways the workshop ships `guitar`: Pickup, Ground, Express at their list prices.
    /// Every guitar ships the same ways; the guitar is the argument so that could change.
    public func shippingOptions(for guitar: Guitar) -> [ShippingOption] {
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

    /// Orders the workshop has taken and not finished (status `placed`): its backlog.
    public func openOrderCount() throws -> Int {
        try writer.read { db in try Self.openOrderCount(in: db) }
    }

    // MARK: - Inside a database access

    static func availability(of guitar: Guitar, in db: Database) throws -> Availability {
        var missing: [String] = []
        for wood in StockedWood.parts(of: guitar) where try quantity(of: wood, in: db) < 1 {
            missing.append(wood.stockName)
        }
        return missing.isEmpty ? .available : .unavailable(missing: missing)
    }

    func estimate(for guitar: Guitar, in db: Database) throws -> BuildEstimate {
        estimateRule.estimate(
            openOrders: try Self.openOrderCount(in: db),
            bodyStock: try Self.quantity(of: .body(guitar.body), in: db),
            fretboardStock: try Self.quantity(of: .fretboard(guitar.fretboard), in: db)
        )
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
            sql: "SELECT COUNT(*) FROM orders WHERE status = ?",
            arguments: [OrderStatus.placed.rawValue]
        ) ?? 0
    }

    /// Reads on the database without holding a Swift concurrency thread.
    func asyncRead<T: Sendable>(_ value: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await writer.read(value)
    }

    private static func reason(_ error: any Error) -> String {
        if let error = error as? DatabaseError {
            return error.message ?? "\(error.resultCode)"
        }
        return "\(error)"
    }
}
