import Foundation
import GRDB
import LuthierDomain

/// The workshop journal's stories in the SQLite file. The workshop's own stories are written in
/// the transaction of what they tell (a stage, a restock, the last piece taken), so a story is
/// there exactly when its event is.
extension WorkshopStore {
    /// The ids of the newest `limit` stories, newest first.
    public func newStoryIDs(limit: Int) throws -> [Int] {
        try writer.read { db in
            try Int.fetchAll(
                db, sql: "SELECT id FROM journal_stories ORDER BY id DESC LIMIT ?", arguments: [max(0, limit)])
        }
    }

    /// The story `id`, if there is one.
    public func story(id: Int) throws -> JournalStory? {
        try writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM journal_stories WHERE id = ?", arguments: [id]).map(
                Self.story(from:))
        }
    }

    /// Writes `entry` dated now; returns it as stored.
    public func addStory(_ entry: JournalEntry) throws -> JournalStory {
        try writer.write { db in try Self.write(entry, at: now(), in: db) }
    }

    // MARK: - Inside a database access

    @discardableResult
    static func write(_ entry: JournalEntry, at now: Date, in db: Database) throws -> JournalStory {
        // Stored in whole seconds, as the API tells the time.
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        try db.execute(
            sql: "INSERT INTO journal_stories (by, title, url, posted_at) VALUES (?, ?, ?, ?)",
            arguments: [entry.by, entry.title, entry.url, seconds * 1_000])
        return JournalStory(
            id: Int(db.lastInsertedRowID), by: entry.by, time: Date(timeIntervalSince1970: TimeInterval(seconds)),
            title: entry.title, url: entry.url)
    }

    static func story(from row: Row) -> JournalStory {
        JournalStory(
            id: row["id"], by: row["by"], time: date(milliseconds: row["posted_at"]), title: row["title"],
            url: row["url"])
    }
}
