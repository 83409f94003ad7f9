import Foundation
import Logging
import LuthierDomain
import PostgresNIO

/// The workshop journal's stories on PostgreSQL, as `WorkshopStore+Journal` keeps them in SQLite.
extension PostgresStore {
    /// The ids of the newest `limit` stories, newest first.
    public func newStoryIDs(limit: Int) async throws -> [Int] {
        try await read { connection in
            try await connection.rows(
                "SELECT id FROM journal_stories ORDER BY id DESC LIMIT \(max(0, limit))", self.logger
            ).map { Int(try $0["id"].decode(Int64.self)) }
        }
    }

    /// The story `id`, if there is one.
    public func story(id: Int) async throws -> JournalStory? {
        try await read { connection in
            try await connection.rows(
                "SELECT id, by, title, url, posted_at FROM journal_stories WHERE id = \(Int64(id))", self.logger
            ).first.map(Self.story(from:))
        }
    }

    /// Writes `entry` dated now; returns it as stored.
    public func addStory(_ entry: JournalEntry) async throws -> JournalStory {
        try await write(lock: Self.journalLock) { connection in
            try await Self.write(entry, at: self.now(), on: connection, self.logger)
        }
    }

    /// The owner's stories take their own lock: nothing of the workshop's waits for them.
    static let journalLock = "journal"

    @discardableResult
    static func write(_ entry: JournalEntry, at now: Date, on connection: PostgresConnection, _ logger: Logger)
        async throws -> JournalStory
    {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let id = try await connection.value(
            Int64.self,
            """
            INSERT INTO journal_stories (by, title, url, posted_at)
            VALUES (\(entry.by), \(entry.title), \(entry.url), \(seconds * 1_000)) RETURNING id
            """, logger)
        guard let id else { throw WorkshopStoreError.storyNotStored }
        return JournalStory(
            id: Int(id), by: entry.by, time: Date(timeIntervalSince1970: TimeInterval(seconds)), title: entry.title,
            url: entry.url)
    }

    static func story(from row: PostgresRandomAccessRow) throws -> JournalStory {
        JournalStory(
            id: Int(try row["id"].decode(Int64.self)), by: try row["by"].decode(String.self),
            time: date(milliseconds: try row["posted_at"].decode(Int64.self)),
            title: try row["title"].decode(String.self),
            url: try row["url"].decode(String?.self))
    }
}
