/// One SQL statement with its values apart from its text, written as a string with
/// interpolations: `"SELECT * FROM orders WHERE number = \(number)"` binds `number`, never
/// splices it. Each database renders the placeholders its own way (`?` for SQLite, `$1` for
/// PostgreSQL), which is why the operations can be written once.
package struct SQLStatement: Sendable, ExpressibleByStringInterpolation {
    package enum Part: Sendable {
        case sql(String)
        case value(SQLValue)
        /// A parenthesised list of values, for `IN`: `(?, ?, ?)`.
        case list([SQLValue])
    }

    package var parts: [Part]

    package init(stringLiteral value: String) { parts = [.sql(value)] }

    package init(stringInterpolation: StringInterpolation) { parts = stringInterpolation.parts }

    private init(parts: [Part]) { self.parts = parts }

    package struct StringInterpolation: StringInterpolationProtocol {
        var parts: [Part] = []

        package init(literalCapacity: Int, interpolationCount: Int) {}

        package mutating func appendLiteral(_ literal: String) { parts.append(.sql(literal)) }

        /// Binds `value`.
        package mutating func appendInterpolation(_ value: some SQLBindable) { parts.append(.value(value.sqlValue)) }

        /// Binds `value`, or `NULL`.
        package mutating func appendInterpolation<Value: SQLBindable>(_ value: Value?) {
            parts.append(.value(value.sqlValue))
        }

        /// Binds each of `values`, as `(?, ?, …)`; an empty list reads `(NULL)`, which matches nothing.
        package mutating func appendInterpolation(list values: [some SQLBindable]) {
            parts.append(.list(values.map(\.sqlValue)))
        }

        /// SQL written in code (a column name, a dialect's word): never input.
        package mutating func appendInterpolation(sql: String) { parts.append(.sql(sql)) }

        /// Another statement, in place, with its values.
        package mutating func appendInterpolation(_ statement: SQLStatement) {
            parts.append(contentsOf: statement.parts)
        }
    }

    /// These statements one after another, `separator` between each two (`OR`, `UNION ALL`, `, `).
    package static func joined(_ statements: some Sequence<SQLStatement>, separator: String) -> SQLStatement {
        var joined = SQLStatement(parts: [])
        for (index, statement) in statements.enumerated() {
            if index > 0 { joined.parts.append(.sql(separator)) }
            joined.parts.append(contentsOf: statement.parts)
        }
        return joined
    }

    /// The text with each value's placeholder as `placeholder(n)` makes it (n from 1), and the
    /// values in order.
    package func rendered(placeholder: (Int) -> String) -> (sql: String, values: [SQLValue]) {
        var sql = ""
        var values: [SQLValue] = []
        for part in parts {
            switch part {
            case .sql(let text):
                sql += text
            case .value(let value):
                values.append(value)
                sql += placeholder(values.count)
            case .list(let list) where list.isEmpty:
                sql += "(NULL)"
            case .list(let list):
                sql += "("
                for (index, value) in list.enumerated() {
                    values.append(value)
                    sql += (index == 0 ? "" : ", ") + placeholder(values.count)
                }
                sql += ")"
            }
        }
        return (sql, values)
    }
}
