import Foundation
import Logging
import LuthierFeatures
import PostgresNIO

/// Stored sessions: the same rows and rules as the SQLite store's (`WorkshopStore+Sessions.swift`).
extension PostgresStore {
    /// The session stored under `key`, marked used now; nil if there is none, if it was replaced
    /// (a tombstone), or if this version cannot read it (then it is deleted: the customer starts
    /// afresh rather than failing every request of that cookie).
    func loadSession(key: String) async throws -> SessionSnapshot? {
        let usedAt = Self.milliseconds(now())
        return try await connection { connection in
            // One statement marks it used and returns it, so no transaction is held across a round trip.
            guard
                let text = try await connection.value(
                    String.self, "UPDATE sessions SET used_at = \(usedAt) WHERE key = \(key) RETURNING snapshot",
                    self.logger
                )
            else { return nil }
            if text == WorkshopStore.tombstone { return nil }
            guard let snapshot = WorkshopStore.decodeSession(text) else {
                try await connection.run("DELETE FROM sessions WHERE key = \(key)", self.logger)
                return nil
            }
            return snapshot
        }
    }

    /// Stores `snapshot` under `key` if the revision stored there is `base` (nothing stored, for
    /// 0), and tells every instance in the same statement (`NOTIFY` goes out when it commits, and
    /// only if it stored); otherwise nothing changes and the answer is `.conflict`.
    func saveSession(key: String, base: Int, snapshot: SessionSnapshot) async throws -> SessionSaveOutcome {
        let text = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        let time = Self.milliseconds(now())
        let told = StoredSessionRevision(key: key, revision: snapshot.revision).payload
        let stored = try await connection { connection in
            try await connection.rows(
                """
                WITH saved AS (
                    INSERT INTO sessions (key, revision, snapshot, created_at, used_at, worth_keeping)
                    VALUES (\(key), \(Int64(snapshot.revision)), \(text), \(time), \(time), \(snapshot.isWorthKeeping))
                    ON CONFLICT (key) DO UPDATE SET
                        revision = excluded.revision, snapshot = excluded.snapshot, used_at = excluded.used_at,
                        worth_keeping = excluded.worth_keeping
                    WHERE sessions.revision = \(Int64(base))
                    RETURNING 1
                )
                SELECT pg_notify(\(self.sessionsChannel), \(told)) FROM saved
                """, self.logger
            ).count
        }
        return stored == 1 ? .saved : .conflict
    }

    /// The revision stored under `key` now (a tombstone's is `Int64.max`), without marking the
    /// session used; nil if none is stored.
    func storedSessionRevision(key: String) async throws -> Int? {
        try await connection { connection in
            try await connection.value(Int64.self, "SELECT revision FROM sessions WHERE key = \(key)", self.logger)
        }.map(Int.init)
    }

    /// Deletes the sessions last used before `date`, and the leftovers last used before
    /// `leftoverDate`; says how many went.
    func deleteSessions(unusedBefore date: Date, leftoversUnusedBefore leftoverDate: Date) async throws -> Int {
        try await connection { connection in
            try await connection.rows(
                """
                DELETE FROM sessions
                WHERE used_at < \(Self.milliseconds(date))
                    OR (NOT worth_keeping AND used_at < \(Self.milliseconds(leftoverDate)))
                RETURNING 1
                """, self.logger
            ).count
        }
    }

    /// Deletes session `key` for good: its row becomes a tombstone of the highest revision, and
    /// every instance is told (one holding the session drops it).
    func deleteSession(key: String) async throws {
        let time = Self.milliseconds(now())
        let told = StoredSessionRevision(key: key, revision: StoredSessionRevision.deleted).payload
        try await execute(
            """
            WITH deleted AS (
                INSERT INTO sessions (key, revision, snapshot, created_at, used_at, worth_keeping)
                VALUES (\(key), \(Int64.max), \(WorkshopStore.tombstone), \(time), \(time), false)
                ON CONFLICT (key) DO UPDATE SET
                    revision = excluded.revision, snapshot = excluded.snapshot, used_at = excluded.used_at,
                    worth_keeping = false
                RETURNING 1
            )
            SELECT pg_notify(\(sessionsChannel), \(told)) FROM deleted
            """)
    }
}
