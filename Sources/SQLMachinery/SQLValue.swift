/// A value bound into a statement or read from a row: the few kinds a store's tables hold
/// (money in minor units and times in milliseconds are integers; rates are decimal text).
///
/// Both databases read and write these the same way, so an operation written once over
/// ``SQLConnection`` never sees which one it runs on.
package enum SQLValue: Sendable, Hashable {
    case integer(Int64)
    case text(String)
    case boolean(Bool)
    case null
}

/// A Swift value a statement can bind (``SQLStatement``'s interpolations).
package protocol SQLBindable {
    var sqlValue: SQLValue { get }
}

/// A Swift value a row's column can be read as (``SQLRow``'s subscript); nil when the column
/// holds another kind.
package protocol SQLReadable {
    static func read(_ value: SQLValue) -> Self?
}

extension String: SQLBindable, SQLReadable {
    package var sqlValue: SQLValue { .text(self) }
    package static func read(_ value: SQLValue) -> String? {
        if case .text(let text) = value { text } else { nil }
    }
}

extension Int64: SQLBindable, SQLReadable {
    package var sqlValue: SQLValue { .integer(self) }
    package static func read(_ value: SQLValue) -> Int64? {
        if case .integer(let integer) = value { integer } else { nil }
    }
}

extension Int: SQLBindable, SQLReadable {
    package var sqlValue: SQLValue { .integer(Int64(self)) }
    package static func read(_ value: SQLValue) -> Int? { Int64.read(value).flatMap { Int(exactly: $0) } }
}

extension Bool: SQLBindable, SQLReadable {
    package var sqlValue: SQLValue { .boolean(self) }
    /// SQLite keeps a boolean as 0 or 1; PostgreSQL as its own type.
    package static func read(_ value: SQLValue) -> Bool? {
        switch value {
        case .boolean(let boolean): boolean
        case .integer(let integer): integer != 0
        default: nil
        }
    }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    package var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension Optional: SQLReadable where Wrapped: SQLReadable {
    package static func read(_ value: SQLValue) -> Wrapped?? {
        if case .null = value { return .some(nil) }
        return Wrapped.read(value).map { .some($0) }
    }
}
