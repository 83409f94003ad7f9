import Foundation
import LuthierDomain
import SQLMachinery

/// The shop's discount codes, kept in the database so that the admin can add and expire them
/// while the shop runs; unique whatever their case.
extension WorkshopStore {
    /// Every code, oldest first.
    public func discountCodes() async throws -> [DiscountCode] {
        try await database.read { connection in try await Self.discountCodes(on: connection) }
    }

    /// Adds `code` and returns every code, oldest first.
    ///
    /// - Throws: `DiscountCodeRefusal.exists` when a code of that name exists in any case, expired
    ///   or not: a code once given out is never reused for other terms.
    @discardableResult
    public func addDiscountCode(_ code: DiscountCode) async throws -> [DiscountCode] {
        try await database.write { connection in
            try await Self.addDiscountCode(code, at: self.now(), on: connection)
            return try await Self.discountCodes(on: connection)
        }
    }

    /// Ends `code` (any case) now: it stops working at once. Returns every code, oldest first.
    ///
    /// - Throws: `DiscountCodeRefusal.noSuchCode`, or `.alreadyExpired` when it had ended already.
    @discardableResult
    public func expireDiscountCode(_ code: String) async throws -> [DiscountCode] {
        try await database.write { connection in
            let at = self.now()
            guard let existing = try await Self.discountCode(code, on: connection) else {
                throw DiscountCodeRefusal.noSuchCode(code)
            }
            guard existing.isValid(at: at) else { throw DiscountCodeRefusal.alreadyExpired(existing.code) }
            try await connection.run(
                "UPDATE discount_codes SET expires_at = \(Self.milliseconds(at)) WHERE code = \(existing.code)")
            return try await Self.discountCodes(on: connection)
        }
    }

    /// Adds each of `codes` that is not stored yet (the `--discount` settings at start-up: a code
    /// the admin expired stays expired), and returns every code, oldest first.
    public func seedDiscountCodes(_ codes: [DiscountCode]) async throws -> [DiscountCode] {
        try await database.write { connection in
            for code in codes where try await Self.discountCode(code.code, on: connection) == nil {
                try await Self.addDiscountCode(code, at: self.now(), on: connection)
            }
            return try await Self.discountCodes(on: connection)
        }
    }

    // MARK: - Inside a transaction

    static func discountCodes(on connection: any SQLConnection) async throws -> [DiscountCode] {
        try await connection.rows(
            """
            SELECT code, percent, expires_at FROM discount_codes
            ORDER BY created_at, code COLLATE \(sql: connection.dialect.byteOrder)
            """
        ).map(discountCode(from:))
    }

    /// The code named `code` in any case (SQLite's column is `COLLATE NOCASE`; PostgreSQL's
    /// index is on `lower(code)`).
    static func discountCode(_ code: String, on connection: any SQLConnection) async throws -> DiscountCode? {
        try await connection.rows(
            "SELECT code, percent, expires_at FROM discount_codes WHERE lower(code) = lower(\(code))"
        ).first.map(discountCode(from:))
    }

    static func addDiscountCode(_ code: DiscountCode, at now: Date, on connection: any SQLConnection) async throws {
        if let existing = try await discountCode(code.code, on: connection) {
            throw DiscountCodeRefusal.exists(existing.code)
        }
        try await connection.run(
            """
            INSERT INTO discount_codes (code, percent, expires_at, created_at)
            VALUES (\(code.code), \(code.percent), \(code.expires.map(milliseconds)), \(milliseconds(now)))
            """)
    }

    private static func discountCode(from row: SQLRow) throws -> DiscountCode {
        DiscountCode(
            code: try row["code"], percent: try row["percent"],
            expires: (try row["expires_at"] as Int64?).map { date(milliseconds: $0) })
    }
}
