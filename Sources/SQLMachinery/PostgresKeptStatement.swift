import PostgresNIO

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
package struct PostgresKeptStatement: PostgresPreparedStatement {
    package typealias Row = PostgresRow

    /// The statement being sent by this task: its name and its text.
    @TaskLocal static var current = (name: "", sql: "")

    package static var name: String { current.name }
    package static var sql: String { current.sql }

    package let bindings: PostgresBindings

    package func makeBindings() -> PostgresBindings { bindings }
    package func decodeRow(_ row: PostgresRow) -> PostgresRow { row }
}
