import Foundation
import LuthierDomain

/// Any Hacker-News-compatible read API: the newest story ids, and one story. The live clients
/// throw one of `NewsError`'s two cases (the seeds' `mapError`): transport errors become
/// `.addressUnreachable`, and whatever cannot be read `.invalidResponse`.
public struct NewsClient: Sendable {
    /// The newest story ids, newest first.
    public var newStoryIDs: @Sendable () async throws -> [Int]
    /// One story.
    public var story: @Sendable (_ id: Int) async throws -> JournalStory

    public init(
        newStoryIDs: @escaping @Sendable () async throws -> [Int],
        story: @escaping @Sendable (Int) async throws -> JournalStory
    ) {
        self.newStoryIDs = newStoryIDs
        self.story = story
    }

    /// The shop's own journal, read in process (the default when no `--news-url` is given): the
    /// same stories its API serves, without a request to itself.
    public static func local(_ journal: JournalClient) -> NewsClient {
        NewsClient(
            newStoryIDs: {
                do { return try await journal.newStoryIDs(JournalClient.listedStories) } catch {
                    throw NewsError.addressUnreachable("the shop's journal")
                }
            },
            story: { id in
                let found: JournalStory?
                do { found = try await journal.story(id) } catch {
                    throw NewsError.addressUnreachable("the shop's journal")
                }
                guard let found else { throw NewsError.invalidResponse }
                return found
            })
    }

    /// A client whose every call fails with `WorkshopClient.Unimplemented`.
    public static var failing: NewsClient {
        NewsClient(
            newStoryIDs: { throw WorkshopClient.Unimplemented(name: "news.newStoryIDs") },
            story: { _ in throw WorkshopClient.Unimplemented(name: "news.story") })
    }
}
