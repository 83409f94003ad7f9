import Foundation
import LuthierDomain
import SQLMachinery

/// The workshop journal's stories. The workshop's own stories are written in the transaction of
/// what they tell (a stage, a restock, the last piece taken), so a story is there exactly when
/// its event is.
extension WorkshopStore {
    /// The ids of the newest `limit` stories, newest first.
    public func newStoryIDs(limit: Int) async throws -> [Int] {
        try await database.read("SELECT id FROM journal_stories ORDER BY id DESC LIMIT \(max(0, limit))").map {
            try $0["id"]
        }
    }

    /// The story `id`, if there is one.
    public func story(id: Int) async throws -> JournalStory? {
        try await database.read("SELECT id, by, title, url, posted_at FROM journal_stories WHERE id = \(id)").first
            .map(Self.story(from:))
    }

    /// Writes `entry` dated now; returns it as stored. The owner's stories take a lock of their
    /// own: nothing of the workshop's waits for them.
    public func addStory(_ entry: JournalEntry) async throws -> JournalStory {
        try await database.write(lock: .journal) { connection in
            try await Self.write(entry, at: self.now(), on: connection)
        }
    }

    // MARK: - Inside a transaction

    @discardableResult
    static func write(_ entry: JournalEntry, at now: Date, on connection: any SQLConnection) async throws
        -> JournalStory
    {
        // Stored in whole seconds, as the API tells the time.
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        guard
            let id = try await connection.value(
                """
                INSERT INTO journal_stories (by, title, url, posted_at)
                VALUES (\(entry.by), \(entry.title), \(entry.url), \(seconds * 1_000)) RETURNING id
                """, as: Int.self)
        else { throw WorkshopStoreError.storyNotStored }
        return JournalStory(
            id: id, by: entry.by, time: Date(timeIntervalSince1970: TimeInterval(seconds)), title: entry.title,
            url: entry.url)
    }

    static func story(from row: SQLRow) throws -> JournalStory {
        JournalStory(
            id: try row["id"], by: try row["by"], time: date(milliseconds: try row["posted_at"]),
            title: try row["title"], url: try row["url"])
    }
}
