import Foundation
import GRDB
import LuthierFeatures

extension WorkshopStore {
    /// The session stored under `key`, marked used now; nil if there is none.
    ///
    /// A stored snapshot this version cannot read (corrupt JSON, or another `format` than
    /// `SessionSnapshot.currentFormat`) is deleted and nil returned: the customer starts afresh,
    /// which beats a server that fails every request of that cookie.
    func loadSession(key: String) async throws -> SessionSnapshot? {
        let usedAt = Self.milliseconds(now())
        return try await writer.write { db in
            guard
                let stored = try DatabaseValue.fetchOne(
                    db, sql: "SELECT snapshot FROM sessions WHERE key = ?", arguments: [key])
            else { return nil }
            let text = String.fromDatabaseValue(stored)
            if text == Self.tombstone { return nil }
            guard let snapshot = text.flatMap(Self.decodeSession) else {
                try db.execute(sql: "DELETE FROM sessions WHERE key = ?", arguments: [key])
                return nil
            }
            try db.execute(sql: "UPDATE sessions SET used_at = ? WHERE key = ?", arguments: [usedAt, key])
            return snapshot
        }
    }

    /// Stores `snapshot` under `key`, marked used now, if the revision stored there is `base`
    /// (nothing stored, for 0); otherwise nothing changes and the answer is `.conflict`: another
    /// writer saved the session since, or it was deleted (its tombstone's revision is never a base).
    ///
    /// The snapshot is stored as JSON with Foundation's default strategies: dates as the exact
    /// `Double` they hold, so they read back equal; rates as decimal text (`ExchangeRate`'s own
    /// coding), so 0.83 stays 0.83.
    func saveSession(key: String, base: Int, snapshot: SessionSnapshot) async throws -> SessionSaveOutcome {
        // Encoded before taking the writer, so that the one writer is held only for the upsert.
        let text = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        let time = Self.milliseconds(now())
        return try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (key, revision, snapshot, created_at, used_at, worth_keeping)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET
                        revision = excluded.revision, snapshot = excluded.snapshot, used_at = excluded.used_at,
                        worth_keeping = excluded.worth_keeping
                    WHERE sessions.revision = ?
                    """,
                arguments: [key, snapshot.revision, text, time, time, snapshot.isWorthKeeping, base]
            )
            return db.changesCount == 1 ? .saved : .conflict
        }
    }

    /// Deletes every session last used before `date`, and the leftovers (not worth keeping, as
    /// the snapshot said when it was saved) last used before `leftoverDate`; says how many went.
    func deleteSessions(unusedBefore date: Date, leftoversUnusedBefore leftoverDate: Date) async throws -> Int {
        let (cutoff, leftoverCutoff) = (Self.milliseconds(date), Self.milliseconds(leftoverDate))
        return try await writer.write { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE used_at < ? OR (worth_keeping = 0 AND used_at < ?)",
                arguments: [cutoff, leftoverCutoff])
            return db.changesCount
        }
    }

    /// What a deleted session's row holds until it expires, under the highest revision: no save's
    /// base is ever that revision, so a save of that key still in flight changes nothing, and the
    /// old id can never come back to life.
    static let tombstone = "replaced"

    /// Deletes the session stored under `key`, for good: its row becomes a tombstone with the
    /// highest revision, read as no session, and expires like any leftover.
    func deleteSession(key: String) async throws {
        let time = Self.milliseconds(now())
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (key, revision, snapshot, created_at, used_at, worth_keeping)
                    VALUES (?, ?, ?, ?, ?, 0)
                    ON CONFLICT (key) DO UPDATE SET
                        revision = excluded.revision, snapshot = excluded.snapshot, used_at = excluded.used_at,
                        worth_keeping = 0
                    """,
                arguments: [key, Int64.max, Self.tombstone, time, time])
        }
    }

    /// The snapshot in `text`, or nil if it is not one of the current format.
    static func decodeSession(_ text: String) -> SessionSnapshot? {
        guard let snapshot = try? JSONDecoder().decode(SessionSnapshot.self, from: Data(text.utf8)),
            snapshot.format == SessionSnapshot.currentFormat
        else { return nil }
        return snapshot
    }
}
