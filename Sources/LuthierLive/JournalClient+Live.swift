import LuthierDomain
import LuthierFeatures

extension JournalClient {
    /// The journal in the shop's SQLite file.
    public static func live(store: WorkshopStore) -> JournalClient {
        JournalClient(
            newStoryIDs: { limit in try store.newStoryIDs(limit: limit) },
            story: { id in try store.story(id: id) },
            add: { entry in try store.addStory(entry) })
    }

    /// The journal on the shop's PostgreSQL database.
    public static func live(postgres: PostgresStore) -> JournalClient {
        JournalClient(
            newStoryIDs: { limit in try await postgres.newStoryIDs(limit: limit) },
            story: { id in try await postgres.story(id: id) },
            add: { entry in try await postgres.addStory(entry) })
    }
}
