import Foundation
import LuthierFeatures
import SQLMachinery

/// Stored sessions: a JSON snapshot per session key, with the revision it was saved at. Every
/// save and deletion is one statement, so none waits for the workshop's lock.
extension WorkshopStore {
    /// The session stored under `key`, marked used now, or `.replaced` for a tombstone; nil if
    /// there is none.
    ///
    /// A stored snapshot this version cannot read (corrupt JSON, or another `format` than
    /// `SessionSnapshot.currentFormat`) is deleted and nil returned: the customer starts afresh,
    /// which beats a server that fails every request of that cookie.
    func loadSession(key: String) async throws -> StoredSession? {
        // One statement marks it used and returns it, so no transaction is held across a round trip.
        guard
            let text = try await database.write(
                "UPDATE sessions SET used_at = \(Self.milliseconds(now())) WHERE key = \(key) RETURNING snapshot"
            ).first?.first(as: String.self)
        else { return nil }
        if text == Self.tombstone { return .replaced }
        guard let snapshot = Self.decodeSession(text) else {
            try await database.write("DELETE FROM sessions WHERE key = \(key)")
            return nil
        }
        return .saved(snapshot)
    }

    /// Stores `snapshot` under `key`, marked used now, if the revision stored there is `base`
    /// (nothing stored, for 0), and tells every instance in the same statement; otherwise nothing
    /// changes and the answer is `.conflict`: another writer saved the session since, or it was
    /// deleted (its tombstone's revision is never a base).
    ///
    /// Saves of several sessions made at once are written together (``GroupCommit``): one
    /// statement and one commit for all, each answered once it is committed.
    ///
    /// With `replacing`, the session stored under that key is deleted in the same statement (its
    /// tombstone written whatever its revision stored): a session whose id an order replaced
    /// moves to its new key in one write. Its new key is a fresh random one (256 bits), with
    /// nothing stored under it to refuse the save.
    ///
    /// The snapshot is stored as JSON with Foundation's default strategies: dates as the exact
    /// `Double` they hold, so they read back equal; rates as decimal text (`ExchangeRate`'s own
    /// coding), so 0.83 stays 0.83.
    func saveSession(
        key: String, base: Int, snapshot: SessionSnapshot, replacing: String? = nil
    ) async throws -> SessionSaveOutcome {
        let text = String(decoding: try JSONEncoder().encode(snapshot), as: UTF8.self)
        return try await sessionSaves.commit(
            SessionSave(
                key: key, base: base, revision: snapshot.revision, snapshot: text,
                isWorthKeeping: snapshot.isWorthKeeping, replacing: replacing))
    }

    /// Writes `saves` in one statement: each row stored where the revision there is its base (the
    /// base of each, picked by its key), every instance told of each row stored.
    ///
    /// A session saves in its turn, so a batch holds each key once. Should one come twice, the
    /// second goes in a statement after the first (one statement cannot change a row twice), so
    /// that it fails nobody else's save.
    static func write(
        _ saves: [SessionSave], on database: any SQLDatabase, now: @Sendable () -> Date
    ) async throws -> [SessionSaveOutcome] {
        var keys: Set<String> = []
        if let repeated = saves.indices.first(where: { index in
            ([saves[index].key] + [saves[index].replacing].compactMap { $0 }).contains { !keys.insert($0).inserted }
        }) {
            return try await write(Array(saves[..<repeated]), on: database, now: now)
                + write(Array(saves[repeated...]), on: database, now: now)
        }
        let time = milliseconds(now())
        let tombstones = saves.compactMap(\.replacing)
        let rows = SQLStatement.joined(
            saves.map { save in
                "(\(save.key), \(save.revision), \(save.snapshot), \(time), \(time), \(save.isWorthKeeping))"
            }
                + tombstones.map { key in tombstoneRow(key, at: time) }, separator: ", ")
        // A tombstone is written over any revision: `sessions.revision` is its own base.
        let bases = SQLStatement.joined(
            saves.map { save in "WHEN \(save.key) THEN \(save.base)" }
                + tombstones.map { key in "WHEN \(key) THEN sessions.revision" }, separator: " ")
        let stored = try await database.write(
            """
            INSERT INTO sessions (key, revision, snapshot, created_at, used_at, worth_keeping)
            VALUES \(rows)
            ON CONFLICT (key) DO UPDATE SET
                revision = excluded.revision, snapshot = excluded.snapshot, used_at = excluded.used_at,
                worth_keeping = excluded.worth_keeping
            WHERE sessions.revision = CASE excluded.key \(bases) END
            RETURNING key, revision
            """,
            telling: SQLNotice(channel: .sessions, payload: StoredSessionRevision.payload(ofColumnsIn: "changed")))
        let saved = Set(try stored.map { row -> String in try row["key"] })
        return saves.map { saved.contains($0.key) ? .saved : .conflict }
    }

    /// The revision stored under `key` now (a tombstone's is `Int64.max`), without marking the
    /// session used; nil if none is stored.
    func storedSessionRevision(key: String) async throws -> Int? {
        try await database.read("SELECT revision FROM sessions WHERE key = \(key)").first?.first(as: Int.self)
    }

    /// Deletes every session last used before `date`, and the leftovers (not worth keeping, as
    /// the snapshot said when it was saved) last used before `leftoverDate`; says how many went.
    func deleteSessions(unusedBefore date: Date, leftoversUnusedBefore leftoverDate: Date) async throws -> Int {
        try await database.write(
            """
            DELETE FROM sessions
            WHERE used_at < \(Self.milliseconds(date))
                OR (worth_keeping = \(false) AND used_at < \(Self.milliseconds(leftoverDate)))
            RETURNING 1
            """
        ).count
    }

    /// What a deleted session's row holds until it expires, under the highest revision: no save's
    /// base is ever that revision, so a save of that key still in flight changes nothing, and the
    /// old id can never come back to life.
    static let tombstone = "replaced"

    /// The row of `sessions` that makes `key` a tombstone, written at `time`.
    private static func tombstoneRow(_ key: String, at time: Int64) -> SQLStatement {
        "(\(key), \(StoredSessionRevision.deleted), \(tombstone), \(time), \(time), \(false))"
    }

    /// Deletes the session stored under `key`, for good: its row becomes a tombstone with the
    /// highest revision, read as no session, and expires like any leftover; every instance is
    /// told (one holding the session drops it).
    func deleteSession(key: String) async throws {
        let time = Self.milliseconds(now())
        _ = try await database.write(
            """
            INSERT INTO sessions (key, revision, snapshot, created_at, used_at, worth_keeping)
            VALUES \(Self.tombstoneRow(key, at: time))
            ON CONFLICT (key) DO UPDATE SET
                revision = excluded.revision, snapshot = excluded.snapshot, used_at = excluded.used_at,
                worth_keeping = excluded.worth_keeping
            RETURNING 1
            """,
            telling: SQLNotice(
                channel: .sessions,
                payload: "\(StoredSessionRevision(key: key, revision: StoredSessionRevision.deleted).payload)"))
    }

    /// The snapshot in `text`, or nil if it is not one of the current format.
    static func decodeSession(_ text: String) -> SessionSnapshot? {
        guard let snapshot = try? JSONDecoder().decode(SessionSnapshot.self, from: Data(text.utf8)),
            snapshot.format == SessionSnapshot.currentFormat
        else { return nil }
        return snapshot
    }
}

/// One session's save, waiting to be written with the others made at once.
struct SessionSave: Sendable {
    let key: String
    /// The revision the save expects stored (0: none).
    let base: Int
    let revision: Int
    /// The snapshot's JSON.
    let snapshot: String
    let isWorthKeeping: Bool
    /// The key the session was stored under before its id was replaced: deleted with this save.
    var replacing: String? = nil
}

extension StoredSessionRevision {
    /// ``payload`` as SQL, of the `revision` and `key` columns of the row `table` names.
    static func payload(ofColumnsIn table: String) -> SQLStatement {
        "CAST(\(sql: table).revision AS TEXT) || ' ' || \(sql: table).key"
    }
}
