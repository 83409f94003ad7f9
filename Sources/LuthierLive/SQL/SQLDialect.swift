/// The few words SQLite and PostgreSQL spell differently, for statements written once.
struct SQLDialect: Sendable {
    /// The placeholder of the n-th value (from 1).
    let placeholder: @Sendable (Int) -> String
    /// The collation that orders text by its bytes, as every listing here sorts (`BINARY`, `"C"`).
    let byteOrder: String
    /// The function that finds text in text, 0 when absent (`instr`, `strpos`).
    let position: String
    /// The column that orders a table without a key of its own by insertion (`rowid`, `id`).
    let insertionOrder: String

    static let sqlite = SQLDialect(
        placeholder: { _ in "?" }, byteOrder: "BINARY", position: "instr", insertionOrder: "rowid")

    static let postgres = SQLDialect(
        placeholder: { "$\($0)" }, byteOrder: "\"C\"", position: "strpos", insertionOrder: "id")
}
