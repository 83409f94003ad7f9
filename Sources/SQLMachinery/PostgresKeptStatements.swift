import Synchronization

/// The statements an instance keeps, each named once: at most ``limit``, so that a statement
/// whose text varied without end could not fill the server's memory on every connection; past
/// it, a statement goes unnamed, as before.
package final class PostgresKeptStatements: Sendable {
    /// Far more than a store sends (the group commit's one per number of saves included).
    package static let limit = 512

    /// Each kept statement's name, by its text and the types of its values.
    private let names = Mutex<[String: String]>([:])

    /// The name of `sql` with values of `types` (one letter each), named now if it was not and
    /// room is left; nil past the limit.
    package func name(of sql: String, types: String) -> String? {
        let key = types + " " + sql
        return names.withLock { names in
            if let name = names[key] { return name }
            guard names.count < Self.limit else { return nil }
            let name = "luthier_\(names.count + 1)"
            names[key] = name
            return name
        }
    }
}
