import LuthierDomain
import LuthierFeatures

extension JournalClient {
    /// The journal in the shop's database.
    public static func live(store: WorkshopStore) -> JournalClient {
        JournalClient(
            newStoryIDs: { limit in try await store.newStoryIDs(limit: limit) },
            story: { id in try await store.story(id: id) },
            add: { entry in try await store.addStory(entry) })
    }
}
