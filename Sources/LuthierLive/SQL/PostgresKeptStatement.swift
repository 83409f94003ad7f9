import PostgresNIO
import Synchronization

/// A statement PostgreSQL keeps parsed (and, once its plan settles, planned) on each connection,
/// under the name ``PostgresKeptStatements`` gives its text and the types of its values.
///
/// Sent as an unnamed statement, every statement is parsed, analysed and planned anew: that was
/// four tenths of PostgreSQL's work for a customer. PostgresNIO prepares a named statement once per
/// connection and then only binds and executes it, but it takes the name and the text from the
/// statement's type (``PostgresPreparedStatement``), while the store's statements are values made
/// by one SQL layer for both databases. So the type reads them from a task-local value, which
/// ``PostgreSQLConnection`` sets around each call: PostgresNIO reads `name` and `sql` in the
/// calling task, before and after its one suspension, always within the scope of that value.
struct PostgresKeptStatement: PostgresPreparedStatement {
    typealias Row = PostgresRow

    /// The statement being sent by this task: its name and its text.
    @TaskLocal static var current = (name: "", sql: "")

    static var name: String { current.name }
    static var sql: String { current.sql }

    let bindings: PostgresBindings

    func makeBindings() -> PostgresBindings { bindings }
    func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}

/// The statements an instance keeps, each named once: at most ``limit``, so that a statement
/// whose text varied without end could not fill the server's memory on every connection; past
/// it, a statement goes unnamed, as before.
final class PostgresKeptStatements: Sendable {
    /// Far more than the shop has (the group commit's one per number of saves included).
    static let limit = 512

    /// Each kept statement's name, by its text and the types of its values.
    private let names = Mutex<[String: String]>([:])

    /// The name of `sql` with values of `types` (one letter each), named now if it was not and
    /// room is left; nil past the limit.
    func name(of sql: String, types: String) -> String? {
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
