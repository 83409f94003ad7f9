/// One row a statement returned, its columns read by name: `let number: String = try row["number"]`.
package struct SQLRow: Sendable {
    /// The columns' names, shared by every row of one result.
    package let columns: SQLColumns
    package let values: [SQLValue]

    /// The column `name` as a `Value`.
    ///
    /// - Throws: ``Unreadable`` when there is no such column, or it holds another kind of value
    ///   (a table this version does not know how to read).
    package subscript<Value: SQLReadable>(_ name: String) -> Value {
        get throws {
            guard let index = columns.index[name] else { throw Unreadable(column: name, found: nil) }
            guard let value = Value.read(values[index]) else {
                throw Unreadable(column: name, found: values[index])
            }
            return value
        }
    }

    /// The first column, whatever its name (`SELECT COUNT(*)`).
    package func first<Value: SQLReadable>(as: Value.Type = Value.self) throws -> Value {
        guard let value = values.first.flatMap(Value.read) else {
            throw Unreadable(column: columns.names.first ?? "1", found: values.first)
        }
        return value
    }

    /// A column that is missing or holds another kind of value than the one asked for.
    package struct Unreadable: Error, CustomStringConvertible {
        let column: String
        let found: SQLValue?

        package var description: String {
            found.map { "The column \(column) holds \($0), not the kind expected" } ?? "No column \(column)"
        }
    }
}

/// The names of a result's columns, and where each is.
package final class SQLColumns: Sendable {
    package let names: [String]
    package let index: [String: Int]

    package init(_ names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() where index[name] == nil { index[name] = position }
        self.index = index
    }
}
