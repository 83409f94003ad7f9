/// Why a database could not do its job: the operator's business, distinct from what a store's own
/// operations refuse.
public enum SQLDatabaseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The database could not be opened or brought up to date (bad path, no permission, not an
    /// SQLite file, a newer schema, a server that refuses the connection…).
    case cannotOpen(path: String, reason: String)
    /// The file's integrity check found damage (its first findings), and it was not opened to be
    /// served all the same.
    case corrupt(path: String, problems: [String])
    /// The database did not answer within the bound a call may wait (PostgreSQL: the server is
    /// down or unreachable); nothing was written, or the caller's retry will find what was.
    case unreachable(database: String, after: Duration)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            "Cannot open the database at \(path): \(reason)"
        case .corrupt(let path, let problems):
            "The database at \(path) is damaged \(Self.findings(problems))."
        case .unreachable(let database, let after):
            "The database at \(database) did not answer within \(after)"
        }
    }

    /// What an integrity check found, as a damaged database's message shows it: its first three
    /// findings, and how many more.
    package static func findings(_ problems: [String]) -> String {
        "(SQLite's integrity check: \(problems.prefix(3).joined(separator: "; ")))"
            + (problems.count > 3 ? " and \(problems.count - 3) more" : "")
    }
}
