import SQLMachinery

/// Why the workshop's store could not do its job — distinct from `OrderError`, which is the
/// customer's business (a wood ran out); these are the operator's. (A database that does not
/// answer in time is an `SQLDatabaseError.unreachable`.)
public enum WorkshopStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database file could not be opened or brought up to date (bad path, no permission, not
    /// an SQLite file, a newer schema…).
    case cannotOpen(path: String, reason: String)
    /// The file's integrity check found damage (its first findings), and the operator did not ask
    /// to serve it all the same.
    case corrupt(path: String, problems: [String])
    /// A stored order has a value this version does not understand.
    case unreadableOrder(number: String, column: String, value: String)
    /// No free order number was found after several random draws (practically impossible below
    /// hundreds of millions of orders).
    case noFreeOrderNumber
    /// An order request without a single guitar: a caller's mistake, refused before anything is
    /// written (the checkout never offers one).
    case emptyOrder
    /// A secret the instances share is stored but is not the 32 bytes of hex it must be.
    case unreadableSecret(name: String)
    /// An insert of a journal story gave back no id (the database's answer was not the row).
    case storyNotStored
    /// A pass of the workshop floor in a term that has ended: another instance has taken the lead
    /// since, and this one moved nothing.
    case floorTermEnded(term: Int64, current: Int64)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "Cannot open the workshop database at \(path): \(reason)"
        case .corrupt(let path, let problems):
            "The workshop database at \(path) is damaged \(SQLDatabaseError.findings(problems)). "
                + "Restore it from a backup, or start with --serve-corrupt-database to read out what is left."
        case .unreadableOrder(let number, let column, let value):
            "Order \(number) has an unreadable \(column): \(value)"
        case .noFreeOrderNumber:
            "No free order number could be drawn"
        case .emptyOrder:
            "An order needs at least one guitar"
        case .unreadableSecret(let name):
            "The shared secret \(name) is not 32 bytes of hex; delete its row to make a new one"
        case .storyNotStored:
            "The journal story was not stored: the database gave back no id"
        case .floorTermEnded(let term, let current):
            "The workshop floor's term \(term) has ended (another instance leads it in term \(current)); "
                + "this instance moved nothing"
        }
    }
}
