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

    /// Stores `snapshot` as revision `revision` of the session `key`, marked used now — unless a
    /// revision at least as new is already stored, in which case nothing changes: saves of one
    /// session may race (two tabs, a slow request), and an older one must never win.
    ///
    /// The snapshot is stored as JSON with Foundation's default strategies: dates as the exact
    /// `Double` they hold, so they read back equal; rates as decimal text (`ExchangeRate`'s own
    /// coding), so 0.83 stays 0.83.
    func saveSession(key: String, revision: Int, snapshot: SessionSnapshot) async throws {
        // Encoded before taking the writer, so that the one writer is held only for the upsert.
        let text = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        let time = Self.milliseconds(now())
        try await writer.write { db in
            try db.execute(
                sql: """
                    INSERT INTO sessions (key, revision, snapshot, created_at, used_at, worth_keeping)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (key) DO UPDATE SET
                        revision = excluded.revision, snapshot = excluded.snapshot, used_at = excluded.used_at,
                        worth_keeping = excluded.worth_keeping
                    WHERE excluded.revision > sessions.revision
                    """,
                arguments: [key, revision, text, time, time, snapshot.isWorthKeeping]
            )
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

    /// What a deleted session's row holds until it expires: a save of that key still in flight
    /// (a background save that read the old id before it was replaced) has a lower revision and
    /// changes nothing, so the old id can never come back to life.
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
