import Foundation
import LuthierDomain
import Synchronization
import Testing

@testable import LuthierFeatures

/// The journal reader on a manual clock with a fake API: stories arriving out of order and the
/// list staying sorted, a bound on requests in flight, failed and garbage stories dropped, the id
/// list unreachable or unreadable (a calm notice, the stories kept, asked again at the next
/// refresh), an empty journal, and an API that never answers (bounded by the deadline).
@Suite("JournalFeature")
struct JournalFeatureTests {
    /// A Hacker-News-compatible API in memory: each story answers after its delay on the clock,
    /// and every request says when it starts (so the test advances time only once its deadlines
    /// are fixed, without polling).
    final class FakeNews: Sendable {
        struct Answer: Sendable {
            var delay: Duration
            var result: Result<JournalStory, NewsError>
        }

        let clock: ManualClock
        let started: AsyncStream<String>
        private let startedInput: AsyncStream<String>.Continuation
        let ids = Mutex<(delay: Duration, result: Result<[Int], NewsError>)>((.zero, .success([])))
        let answers = Mutex<[Int: Answer]>([:])
        private let running = Mutex((now: 0, most: 0))

        init(clock: ManualClock) {
            self.clock = clock
            (started, startedInput) = AsyncStream.makeStream()
        }

        var mostInFlight: Int { running.withLock { $0.most } }

        var client: NewsClient {
            NewsClient(
                newStoryIDs: { [self] in
                    let (delay, result) = ids.withLock { $0 }
                    let due = clock.now.advanced(by: delay)
                    startedInput.yield("ids")
                    try await clock.sleep(until: due)
                    return try result.get()
                },
                story: { [self] id in
                    guard let answer = answers.withLock({ $0[id] }) else { throw NewsError.invalidResponse }
                    let due = clock.now.advanced(by: answer.delay)
                    running.withLock {
                        $0.now += 1
                        $0.most = max($0.most, $0.now)
                    }
                    defer { running.withLock { $0.now -= 1 } }
                    startedInput.yield("story \(id)")
                    try await clock.sleep(until: due)
                    return try answer.result.get()
                })
        }

        /// Waits (without polling) until `count` more requests have started.
        func waitForStarts(_ count: Int) async -> [String] {
            await firstValues(count, of: started)
        }
    }

    static func story(_ id: Int, at seconds: Int) -> JournalStory {
        JournalStory(
            id: id, by: "workshop", time: Date(timeIntervalSince1970: TimeInterval(seconds)), title: "Story \(id)")
    }

    static func store(_ news: FakeNews, maxInFlight: Int = 4, maxStories: Int = 30) -> TestStore<JournalFeature> {
        TestStore(
            initialState: JournalState(),
            reducer: JournalFeature(
                news: news.client, clock: news.clock,
                settings: .init(
                    maxStories: maxStories, requestTimeout: .seconds(5), refreshInterval: .seconds(60),
                    maxInFlight: maxInFlight)))
    }

    @Test("stories arriving in any order fill the list story by story, always newest first, two in flight at most")
    func storiesFillInSorted() async {
        let news = FakeNews(clock: ManualClock())
        let (s10, s11, s12, s13) = (
            Self.story(10, at: 100), Self.story(11, at: 300), Self.story(12, at: 200), Self.story(13, at: 400)
        )
        news.ids.withLock { $0 = (.zero, .success([13, 10, 11, 12])) }
        // Two at a time: 13 (4 s) and 10 (1 s) start; 11 (2 s) when 10 is in, 12 (2 s) when 11 is.
        news.answers.withLock {
            $0 = [
                13: .init(delay: .seconds(4), result: .success(s13)),
                10: .init(delay: .seconds(1), result: .success(s10)),
                11: .init(delay: .seconds(2), result: .success(s11)),
                12: .init(delay: .seconds(2), result: .success(s12)),
            ]
        }
        var store = Self.store(news, maxInFlight: 2)
        store.send(.refresh) { $0.isLoading = true }
        await store.receive(.listed([13, 10, 11, 12])) { $0.listed = [13, 10, 11, 12] }
        _ = await news.waitForStarts(3)  // the ids, then stories 13 and 10
        await news.clock.advance(by: .seconds(1))
        await store.receive(.arrived(s10)) { $0.stories = [s10] }
        _ = await news.waitForStarts(1)  // 11
        await news.clock.advance(by: .seconds(2))
        await store.receive(.arrived(s11)) { $0.stories = [s11, s10] }
        _ = await news.waitForStarts(1)  // 12
        await news.clock.advance(by: .seconds(1))
        await store.receive(.arrived(s13)) { $0.stories = [s13, s11, s10] }
        await news.clock.advance(by: .seconds(1))
        await store.receive(.arrived(s12)) { $0.stories = [s13, s11, s12, s10] }
        await store.receive(.loadFinished) {
            $0.isLoading = false
            $0.hasLoaded = true
        }
        #expect(news.mostInFlight == 2)
        #expect(
            JournalOutput(state: store.state).stories.map(\.title) == ["Story 13", "Story 11", "Story 12", "Story 10"])
        await store.finish()
    }

    @Test("a hostile source's stories are shown by the owner's rules: http(s) links only, one bounded line")
    func hostileStoriesAreShownByTheOwnersRules() async {
        let news = FakeNews(clock: ManualClock())
        let time = Date(timeIntervalSince1970: 100)
        let script = JournalStory(id: 1, by: "x", time: time, title: "Click\nme\u{202E}", url: "javascript:alert(1)")
        let huge = JournalStory(id: 2, by: "x", time: time, title: String(repeating: "w", count: 200_000))
        let blank = JournalStory(id: 3, by: "x", time: time, title: "\u{202E}\n")
        news.ids.withLock { $0 = (.zero, .success([1, 2, 3])) }
        news.answers.withLock {
            $0 = [
                1: .init(delay: .zero, result: .success(script)),
                2: .init(delay: .zero, result: .success(huge)),
                3: .init(delay: .zero, result: .success(blank)),
            ]
        }
        var store = Self.store(news, maxInFlight: 1)
        store.send(.refresh) { $0.isLoading = true }
        await store.receive(.listed([1, 2, 3])) { $0.listed = [1, 2, 3] }
        let shownScript = JournalStory(id: 1, by: "x", time: time, title: "Click me")
        await store.receive(.arrived(script)) { $0.stories = [shownScript] }
        let shownHuge = JournalStory(id: 2, by: "x", time: time, title: String(repeating: "w", count: 199) + "…")
        await store.receive(.arrived(huge)) { $0.stories = [shownHuge, shownScript] }
        // Nothing is left of its title: not shown.
        await store.receive(.arrived(blank))
        await store.receive(.loadFinished) {
            $0.isLoading = false
            $0.hasLoaded = true
        }
        await store.finish()
    }

    @Test("a story that fails or is garbage is dropped and the rest are shown; at most maxStories are asked")
    func failedStoriesAreDropped() async {
        let news = FakeNews(clock: ManualClock())
        let (s1, s3) = (Self.story(1, at: 10), Self.story(3, at: 30))
        news.ids.withLock { $0 = (.zero, .success([3, 2, 1, 4, 5])) }
        news.answers.withLock {
            $0 = [
                3: .init(delay: .zero, result: .success(s3)),
                2: .init(delay: .zero, result: .failure(.addressUnreachable("http://news.test"))),
                1: .init(delay: .zero, result: .success(s1)),
                // 4 is garbage (not in the fake: an unreadable answer); 5 is past maxStories.
            ]
        }
        var store = Self.store(news, maxInFlight: 1, maxStories: 4)
        store.send(.refresh) { $0.isLoading = true }
        await store.receive(.listed([3, 2, 1, 4])) { $0.listed = [3, 2, 1, 4] }
        await store.receive(.arrived(s3)) { $0.stories = [s3] }
        await store.receive(.dropped(id: 2))
        await store.receive(.arrived(s1)) { $0.stories = [s3, s1] }
        await store.receive(.dropped(id: 4))
        await store.receive(.loadFinished) {
            $0.isLoading = false
            $0.hasLoaded = true
        }
        await store.finish()
    }

    @Test("the list unreachable or unreadable: a calm notice, the stories kept, asked again at the next refresh")
    func listFailuresAreNoticedAndRetried() async {
        let news = FakeNews(clock: ManualClock())
        let kept = Self.story(1, at: 10)
        news.answers.withLock { $0 = [1: .init(delay: .zero, result: .success(kept))] }
        news.ids.withLock { $0 = (.zero, .success([1])) }
        var store = Self.store(news, maxInFlight: 1)
        store.send(.start)
        await store.receive(.refresh) { $0.isLoading = true }
        await store.receive(.listed([1])) { $0.listed = [1] }
        await store.receive(.arrived(kept)) { $0.stories = [kept] }
        await store.receive(.loadFinished) {
            $0.isLoading = false
            $0.hasLoaded = true
        }

        news.ids.withLock { $0 = (.zero, .failure(.addressUnreachable("http://news.test/v0/newstories.json"))) }
        await news.clock.advance(by: .seconds(60))
        await store.receive(.refresh) { $0.isLoading = true }
        await store.receive(.listFailed(.addressUnreachable("http://news.test/v0/newstories.json"))) {
            $0.isLoading = false
            $0.notice = "The workshop journal cannot be reached just now; it will be asked again shortly."
        }
        #expect(JournalOutput(state: store.state).stories.count == 1, "the stories stay")

        news.ids.withLock { $0 = (.zero, .failure(.invalidResponse)) }
        await news.clock.advance(by: .seconds(60))
        await store.receive(.refresh) { $0.isLoading = true }
        await store.receive(.listFailed(.invalidResponse)) {
            $0.isLoading = false
            $0.notice = "The workshop journal answered with something unreadable; it will be asked again shortly."
        }

        // Back: the notice goes, and an empty journal says so.
        news.ids.withLock { $0 = (.zero, .success([])) }
        await news.clock.advance(by: .seconds(60))
        await store.receive(.refresh) { $0.isLoading = true }
        await store.receive(.listed([])) { $0.listed = [] }
        await store.receive(.loadFinished) {
            $0.isLoading = false
            $0.stories = []
            $0.notice = nil
        }
        #expect(JournalOutput(state: store.state).emptyText == "No story in the journal yet.")
        await store.finish()
    }

    @Test("an API that never answers is bounded by the deadline: the list fails, a story is dropped")
    func neverAnsweringIsBounded() async {
        let news = FakeNews(clock: ManualClock())
        news.ids.withLock { $0 = (.seconds(3_600), .success([1])) }
        var store = Self.store(news)
        store.send(.refresh) { $0.isLoading = true }
        _ = await news.waitForStarts(1)
        await news.clock.advance(by: .seconds(5))
        await store.receive(.listFailed(.addressUnreachable("no answer within 5.0 seconds"))) {
            $0.isLoading = false
            $0.notice = "The workshop journal cannot be reached just now; it will be asked again shortly."
        }

        news.ids.withLock { $0 = (.zero, .success([7])) }
        news.answers.withLock { $0 = [7: .init(delay: .seconds(3_600), result: .success(Self.story(7, at: 1)))] }
        store.send(.refresh) { $0.isLoading = true }
        await store.receive(.listed([7])) { $0.listed = [7] }
        _ = await news.waitForStarts(2)
        await news.clock.advance(by: .seconds(5))
        await store.receive(.dropped(id: 7))
        await store.receive(.loadFinished) {
            $0.isLoading = false
            $0.hasLoaded = true
            $0.notice = nil
        }
        #expect(JournalOutput(state: store.state).emptyText == "No story in the journal yet.")
        await store.finish()
    }
}
