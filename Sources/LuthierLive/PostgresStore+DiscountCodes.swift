import Foundation
import Logging
import LuthierDomain
import PostgresNIO

/// The shop's discount codes, unique whatever their case (an index on `lower(code)`).
extension PostgresStore {
    /// Every code, oldest first.
    public func discountCodes() async throws -> [DiscountCode] {
        try await read { connection in try await Self.discountCodes(on: connection, self.logger) }
    }

    /// Adds `code` and returns every code.
    ///
    /// - Throws: `DiscountCodeRefusal.exists` when a code of that name exists in any case.
    public func addDiscountCode(_ code: DiscountCode) async throws -> [DiscountCode] {
        try await write { connection in
            try await Self.addDiscountCode(code, at: self.now(), on: connection, self.logger)
            return try await Self.discountCodes(on: connection, self.logger)
        }
    }

    /// Ends `code` (any case) now, and returns every code.
    ///
    /// - Throws: `DiscountCodeRefusal.noSuchCode`, or `.alreadyExpired`.
    public func expireDiscountCode(_ code: String) async throws -> [DiscountCode] {
        try await write { connection in
            let at = self.now()
            guard let existing = try await Self.discountCode(code, on: connection, self.logger) else {
                throw DiscountCodeRefusal.noSuchCode(code)
            }
            guard existing.isValid(at: at) else { throw DiscountCodeRefusal.alreadyExpired(existing.code) }
            try await connection.run(
                "UPDATE discount_codes SET expires_at = \(Self.milliseconds(at)) WHERE lower(code) = lower(\(code))",
                self.logger)
            return try await Self.discountCodes(on: connection, self.logger)
        }
    }

    /// Adds each of `codes` not stored yet (a code the admin expired stays expired), and returns
    /// every code, oldest first.
    public func seedDiscountCodes(_ codes: [DiscountCode]) async throws -> [DiscountCode] {
        try await write { connection in
            for code in codes where try await Self.discountCode(code.code, on: connection, self.logger) == nil {
                try await Self.addDiscountCode(code, at: self.now(), on: connection, self.logger)
            }
            return try await Self.discountCodes(on: connection, self.logger)
        }
    }

    // MARK: - Inside a transaction

    static func discountCodes(on connection: PostgresConnection, _ logger: Logger) async throws -> [DiscountCode] {
        try await connection.rows(
            "SELECT code, percent, expires_at FROM discount_codes ORDER BY created_at, code COLLATE \"C\"", logger
        ).map(discountCode(from:))
    }

    static func discountCode(
        _ code: String, on connection: PostgresConnection, _ logger: Logger
    ) async throws -> DiscountCode? {
        try await connection.rows(
            "SELECT code, percent, expires_at FROM discount_codes WHERE lower(code) = lower(\(code))", logger
        ).first.map(discountCode(from:))
    }

    static func addDiscountCode(
        _ code: DiscountCode, at now: Date, on connection: PostgresConnection, _ logger: Logger
    ) async throws {
        if let existing = try await discountCode(code.code, on: connection, logger) {
            throw DiscountCodeRefusal.exists(existing.code)
        }
        try await connection.run(
            """
            INSERT INTO discount_codes (code, percent, expires_at, created_at)
            VALUES (\(code.code), \(code.percent), \(code.expires.map(milliseconds)), \(milliseconds(now)))
            """, logger)
    }

    private static func discountCode(from row: PostgresRandomAccessRow) throws -> DiscountCode {
        DiscountCode(
            code: try row["code"].decode(String.self), percent: try row["percent"].decode(Int.self),
            expires: try row["expires_at"].decode(Int64?.self).map { date(milliseconds: $0) })
    }
}
