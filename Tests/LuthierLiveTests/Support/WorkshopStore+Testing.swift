import LuthierDomain

@testable import LuthierLive
@testable import SQLMachinery

extension WorkshopStore {
    /// The SQLite file under a store a test opened on one: for raw SQL, the schema and its
    /// migrations, the lock count.
    var sqlite: SQLiteDatabase {
        guard let sqlite = database as? SQLiteDatabase else { preconditionFailure("not an SQLite store") }
        return sqlite
    }

    /// Whether the workshop can build `guitar` now.
    func availability(for guitar: Guitar) async throws -> Availability {
        try await availability(for: [CartLine(guitar: guitar, quantity: 1)])[0]
    }

    /// How long `guitar` would take.
    func estimate(for guitar: Guitar) async throws -> BuildEstimate {
        try await estimate(for: [CartLine(guitar: guitar, quantity: 1)])
    }
}
