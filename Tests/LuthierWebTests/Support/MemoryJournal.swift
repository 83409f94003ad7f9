import Foundation
import LuthierDomain
import LuthierFeatures
import Synchronization

/// A journal kept in memory, for the web tests that do not read it (the fuzzer reaches its API
/// like every route) and for those that write stories and read them back over HTTP.
final class MemoryJournal: Sendable {
    private let stories = Mutex<[JournalStory]>([])
    private let now: @Sendable () -> Date

    init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    var client: JournalClient {
        JournalClient(
            newStoryIDs: { [self] limit in
                stories.withLock { Array($0.map(\.id).reversed().prefix(max(0, limit))) }
            },
            story: { [self] id in stories.withLock { $0.first { $0.id == id } } },
            add: { [self] entry in
                let time = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
                return stories.withLock { stories in
                    let story = JournalStory(
                        id: stories.count + 1, by: entry.by, time: time, title: entry.title, url: entry.url)
                    stories.append(story)
                    return story
                }
            })
    }
}
