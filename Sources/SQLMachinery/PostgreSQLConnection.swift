import Foundation
import Logging
import PostgresNIO

/// An ``SQLConnection`` on PostgreSQL: a pooled `PostgresConnection` inside the transaction
/// ``PostgreSQLDatabase`` opened, its statements sent with `$n` placeholders and binary binds.
package struct PostgreSQLConnection: SQLConnection {
    package let database: PostgreSQLDatabase
    package let connection: PostgresConnection

    package var dialect: SQLDialect { .postgres }

    package func rows(_ statement: SQLStatement) async throws -> [SQLRow] {
        let (sql, values) = statement.rendered(placeholder: SQLDialect.postgres.placeholder)
        var binds = PostgresBindings(capacity: values.count)
        // The types are part of what PostgreSQL keeps of a statement (a null's is left to it).
        var types = ""
        for value in values {
            switch value {
            case .integer(let integer):
                binds.append(integer)
                types += "i"
            case .text(let text):
                binds.append(text)
                types += "t"
            case .boolean(let boolean):
                binds.append(boolean)
                types += "b"
            case .null:
                binds.appendNull()
                types += "n"
            }
        }
        // A statement with values is one a store sends again and again; one without is a
        // migration's, sent once (and PostgreSQL keeps no plan of a table's creation).
        guard !values.isEmpty, let name = database.keptStatements.name(of: sql, types: types) else {
            return try await Self.rows(
                of: connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: database.logger))
        }
        return try await PostgresKeptStatement.$current.withValue((name, sql)) {
            try await Self.rows(of: connection.execute(PostgresKeptStatement(bindings: binds), logger: database.logger))
        }
    }

    private static func rows(of result: some AsyncSequence<PostgresRow, any Error>) async throws -> [SQLRow] {
        var columns: SQLColumns?
        var rows: [SQLRow] = []
        for try await row in result {
            let names = columns ?? SQLColumns(row.map(\.columnName))
            columns = names
            rows.append(SQLRow(columns: names, values: try row.map(Self.value)))
        }
        return rows
    }

    /// Keyed by the schema and the lock's name: the instances of one service share both; two services
    /// (or two tests) in other schemas of one database never wait for each other.
    package func lock(_ lock: SQLWriteLock) async throws {
        try await run("SELECT \(Self.advisoryLock(lock))")
    }

    /// An `InitPlan` PostgreSQL runs once, before the statement's scans: the lock is taken before
    /// any row is read or locked.
    package func holding(_ lock: SQLWriteLock) -> SQLStatement {
        "(SELECT count(*) FROM (SELECT \(Self.advisoryLock(lock))) AS taken) = 1"
    }

    private static func advisoryLock(_ lock: SQLWriteLock) -> SQLStatement {
        "pg_advisory_xact_lock(hashtextextended(current_schema() || ':' || \(lock.name), 0))"
    }

    package func tell(_ payload: String, on channel: SQLChannel) async throws {
        try await run("SELECT \(notification(payload, on: channel))")
    }

    package func rows(
        after writes: [SQLStatement], then statement: SQLStatement, telling payload: String, on channel: SQLChannel
    ) async throws -> [SQLRow] {
        let parts = SQLStatement.joined(
            writes.enumerated().map { index, write in "write\(sql: String(index)) AS (\(write)), " }, separator: "")
        // The notification as the query's one-time filter: sent however many rows there are.
        return try await rows(
            """
            WITH \(parts)result AS (\(statement))
            SELECT * FROM result WHERE (SELECT count(*) FROM (SELECT \(notification(payload, on: channel))) AS told) = 1
            """)
    }

    private func notification(_ payload: String, on channel: SQLChannel) -> SQLStatement {
        // A notice that names the instance that sent it is skipped there when it comes back: the
        // sender has acted on it already.
        let told = channel.namesItsSender ? payload + " " + database.instance : payload
        return "pg_notify(\(database.channel(channel)), \(told))"
    }

    /// A cell as one of the kinds ``SQLValue`` holds; sums (`numeric`) read as integers.
    private static func value(_ cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2: return .integer(Int64(try cell.decode(Int16.self)))
        case .int4: return .integer(Int64(try cell.decode(Int32.self)))
        case .int8: return .integer(try cell.decode(Int64.self))
        case .bool: return .boolean(try cell.decode(Bool.self))
        case .numeric:
            let number = try cell.decode(Decimal.self)
            let integer = NSDecimalNumber(decimal: number).int64Value
            return Decimal(integer) == number ? .integer(integer) : .text("\(number)")
        default: return .text(try cell.decode(String.self))
        }
    }
}
