/// One row a statement returned, its columns read by name: `let number: String = try row["number"]`.
struct SQLRow: Sendable {
    /// The columns' names, shared by every row of one result.
    let columns: SQLColumns
    let values: [SQLValue]

    /// The column `name` as a `Value`.
    ///
    /// - Throws: ``Unreadable`` when there is no such column, or it holds another kind of value
    ///   (a table this version does not know how to read).
    subscript<Value: SQLReadable>(_ name: String) -> Value {
        get throws {
            guard let index = columns.index[name] else { throw Unreadable(column: name, found: nil) }
            guard let value = Value.read(values[index]) else {
                throw Unreadable(column: name, found: values[index])
            }
            return value
        }
    }

    /// The first column, whatever its name (`SELECT COUNT(*)`).
    func first<Value: SQLReadable>(as: Value.Type = Value.self) throws -> Value {
        guard let value = values.first.flatMap(Value.read) else {
            throw Unreadable(column: columns.names.first ?? "1", found: values.first)
        }
        return value
    }

    /// A column that is missing or holds another kind of value than the one asked for.
    struct Unreadable: Error, CustomStringConvertible {
        let column: String
        let found: SQLValue?

        var description: String {
            found.map { "The column \(column) holds \($0), not the kind expected" } ?? "No column \(column)"
        }
    }
}

/// The names of a result's columns, and where each is.
final class SQLColumns: Sendable {
    let names: [String]
    let index: [String: Int]

    init(_ names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }
}
