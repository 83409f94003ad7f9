/// The few words SQLite and PostgreSQL spell differently, for statements written once.
package struct SQLDialect: Sendable {
    /// The placeholder of the n-th value (from 1).
    package let placeholder: @Sendable (Int) -> String
    /// The collation that orders text by its bytes, as every listing here sorts (`BINARY`, `"C"`).
    package let byteOrder: String
    /// The function that finds text in text, 0 when absent (`instr`, `strpos`).
    package let position: String
    /// The column that orders a table without a key of its own by insertion (`rowid`, `id`).
    package let insertionOrder: String

    package static let sqlite = SQLDialect(
        placeholder: { _ in "?" }, byteOrder: "BINARY", position: "instr", insertionOrder: "rowid")

    package static let postgres = SQLDialect(
        placeholder: { "$\($0)" }, byteOrder: "\"C\"", position: "strpos", insertionOrder: "id")
}
