import Foundation
import GRDB
import LuthierDomain

/// The shop's discount codes, kept in the database so that the admin can add and expire them
/// while the shop runs.
extension WorkshopStore {
    /// Every code, oldest first.
    public func discountCodes() throws -> [DiscountCode] {
        try writer.read { db in try Self.discountCodes(in: db) }
    }

    /// Adds `code`.
    ///
    /// - Throws: `DiscountCodeRefusal.exists` when a code of that name exists in any case, expired
    ///   or not: a code once given out is never reused for other terms.
    public func addDiscountCode(_ code: DiscountCode) throws {
        try writer.write { db in try Self.addDiscountCode(code, at: now(), in: db) }
    }

    /// Ends `code` (any case) now: it stops working at once.
    ///
    /// - Throws: `DiscountCodeRefusal.noSuchCode`, or `.alreadyExpired` when it had ended already.
    /// - Returns: the code as stored now.
    public func expireDiscountCode(_ code: String) throws -> DiscountCode {
        try writer.write { db in try Self.expireDiscountCode(code, at: now(), in: db) }
    }

    /// Adds each of `codes` that is not stored yet (the `--discount` settings at start-up: a code
    /// the admin expired stays expired), and returns every code, oldest first.
    public func seedDiscountCodes(_ codes: [DiscountCode]) throws -> [DiscountCode] {
        try writer.write { db in
            for code in codes where try Self.discountCode(code.code, in: db) == nil {
                try Self.addDiscountCode(code, at: now(), in: db)
            }
            return try Self.discountCodes(in: db)
        }
    }

    // MARK: - Inside a database access

    static func discountCodes(in db: Database) throws -> [DiscountCode] {
        try Row.fetchAll(db, sql: "SELECT * FROM discount_codes ORDER BY created_at, code").map(discountCode(from:))
    }

    static func discountCode(_ code: String, in db: Database) throws -> DiscountCode? {
        try Row.fetchOne(db, sql: "SELECT * FROM discount_codes WHERE code = ?", arguments: [code])
            .map(discountCode(from:))
    }

    static func addDiscountCode(_ code: DiscountCode, at now: Date, in db: Database) throws {
        if let existing = try discountCode(code.code, in: db) { throw DiscountCodeRefusal.exists(existing.code) }
        try db.execute(
            sql: "INSERT INTO discount_codes (code, percent, expires_at, created_at) VALUES (?, ?, ?, ?)",
            arguments: [
                code.code, code.percent, code.expires.map(milliseconds), milliseconds(now),
            ])
    }

    static func expireDiscountCode(_ code: String, at: Date, in db: Database) throws -> DiscountCode {
        guard let existing = try discountCode(code, in: db) else { throw DiscountCodeRefusal.noSuchCode(code) }
        guard existing.isValid(at: at) else { throw DiscountCodeRefusal.alreadyExpired(existing.code) }
        try db.execute(
            sql: "UPDATE discount_codes SET expires_at = ? WHERE code = ?",
            arguments: [milliseconds(at), existing.code])
        return DiscountCode(
            code: existing.code, percent: existing.percent, expires: date(milliseconds: milliseconds(at)))
    }

    private static func discountCode(from row: Row) -> DiscountCode {
        DiscountCode(
            code: row["code"], percent: row["percent"],
            expires: (row["expires_at"] as Int64?).map { date(milliseconds: $0) })
    }
}
