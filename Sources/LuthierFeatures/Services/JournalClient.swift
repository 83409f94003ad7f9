import Foundation
import LuthierDomain

/// The workshop journal's store: the stories the workshop wrote by itself and the ones the owner
/// added, kept with the shop's database so they survive restarts. A struct of closures: the live
/// stores answer in LuthierLive, and tests pass `.failing` with the calls they expect set.
public struct JournalClient: Sendable {
    /// The ids of the newest `limit` stories, newest first.
    public var newStoryIDs: @Sendable (_ limit: Int) async throws -> [Int]
    /// One story, if there is one with that id.
    public var story: @Sendable (_ id: Int) async throws -> JournalStory?
    /// Writes a story dated now; returns it as stored.
    public var add: @Sendable (JournalEntry) async throws -> JournalStory

    public init(
        newStoryIDs: @escaping @Sendable (Int) async throws -> [Int],
        story: @escaping @Sendable (Int) async throws -> JournalStory?,
        add: @escaping @Sendable (JournalEntry) async throws -> JournalStory
    ) {
        self.newStoryIDs = newStoryIDs
        self.story = story
        self.add = add
    }

    /// How many ids the API lists at most (as Hacker News's `newstories.json` does).
    public static let listedStories = 500

    /// A client whose every call fails with `WorkshopClient.Unimplemented`.
    public static var failing: JournalClient {
        JournalClient(
            newStoryIDs: { _ in throw WorkshopClient.Unimplemented(name: "journal.newStoryIDs") },
            story: { _ in throw WorkshopClient.Unimplemented(name: "journal.story") },
            add: { _ in throw WorkshopClient.Unimplemented(name: "journal.add") })
    }
}
