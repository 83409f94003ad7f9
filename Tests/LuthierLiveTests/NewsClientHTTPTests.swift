import AsyncHTTPClient
import Clocks
import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive

/// The journal reader against a real local Hacker-News-compatible API: the HTTP client's two error
/// cases, stories arriving in whatever order the provider answers them (the list stays sorted and
/// a garbage story is dropped), and an API that never answers (bounded by the deadline on a test
/// clock). Nothing sleeps: the provider holds each answer until the test releases it.
@Suite("NewsClient over HTTP")
struct NewsClientHTTPTests {
    static func storyJSON(_ id: Int, time: Int) -> String {
        #"{"by":"workshop","id":\#(id),"time":\#(time),"title":"Story \#(id)","type":"story"}"#
    }

    static func withProvider(
        _ body: @Sendable (LocalNewsProvider, URL, HTTPClient) async throws -> Void
    ) async throws {
        let provider = LocalNewsProvider()
        try await provider.run { url in
            try await withHTTPClient { client in try await body(provider, url, client) }
        }
    }

    @Test("ids and stories are read; a status, garbage, a comment or nothing there is one of the two cases")
    func readsTheAPIAndMapsErrors() async throws {
        try await Self.withProvider { provider, url, http throws in
            provider.set("v0/newstories.json", .answer("[3,1,2]"))
            provider.set("v0/item/1.json", .answer(Self.storyJSON(1, time: 1_800_000_000)))
            provider.set(
                "v0/item/2.json", .answer(#"{"by":"x","id":2,"text":"a comment","time":1,"type":"comment"}"#))
            provider.set("v0/item/3.json", .answer("{garbage"))
            provider.set("v0/item/4.json", .status(.internalServerError))
            let news = NewsClient.http(baseURL: url, httpClient: http)
            #expect(try await news.newStoryIDs() == [3, 1, 2])
            #expect(try await news.story(1).title == "Story 1")
            for id in [2, 3, 4, 5] {
                await #expect(throws: NewsError.invalidResponse, "item \(id)") { try await news.story(id) }
            }
            provider.set("v0/newstories.json", .answer(#"{"not":"a list"}"#))
            await #expect(throws: NewsError.invalidResponse) { try await news.newStoryIDs() }
            // A story padded (with JSON's own spaces) to the size bound is read; a byte more is
            // refused unread, though it would decode.
            let story = Self.storyJSON(6, time: 1_800_000_000)
            let padding = NewsClient.maximumBodyBytes - story.utf8.count
            provider.set("v0/item/6.json", .answer(String(repeating: " ", count: padding) + story))
            #expect(try await news.story(6).title == "Story 6")
            let next = Self.storyJSON(7, time: 1_800_000_000)
            provider.set("v0/item/7.json", .answer(String(repeating: " ", count: padding + 1) + next))
            await #expect(throws: NewsError.invalidResponse) { try await news.story(7) }
        }
        // Nothing listening at the address. (The client's own connect timeout is cut short: on a
        // refused connection it tries again until then; the reader's deadline bounds it in the shop.)
        let http = HTTPClient(
            eventLoopGroupProvider: .singleton, configuration: .init(timeout: .init(connect: .milliseconds(200))))
        // Port 1 on loopback: nothing listens there on any machine this runs on.
        let closed = try #require(URL(string: "http://127.0.0.1:1"))
        await #expect(throws: NewsError.addressUnreachable("\(closed.absoluteString)/v0/newstories.json")) {
            try await NewsClient.http(baseURL: closed, httpClient: http).newStoryIDs()
        }
        try await http.shutdown()
    }

    @Test("released in random order, the stories fill the list one by one, always newest first; garbage is dropped")
    func storiesArriveInAnyOrder() async throws {
        try await Self.withProvider { provider, url, http in
            provider.set("v0/newstories.json", .answer("[5,4,3,2,1]"))
            for id in 1...5 {
                provider.set("v0/item/\(id).json", .hold(id == 3 ? "{garbage" : Self.storyJSON(id, time: 1_000 + id)))
            }
            let (feedback, input) = AsyncStream<(JournalFeature.Action, JournalState)>.makeStream()
            let feed = JournalFeed(
                news: .http(baseURL: url, httpClient: http), clock: TestClock(),
                settings: .init(maxStories: 10, requestTimeout: .seconds(5), maxInFlight: 5), feedback: input)
            var actions = feedback.makeAsyncIterator()
            var requests = provider.requests.makeAsyncIterator()
            feed.store.send(.refresh)
            #expect(await actions.next()?.0 == .listed([5, 4, 3, 2, 1]))
            var asked: Set<String> = []
            while asked.count < 6, let path = await requests.next() { asked.insert(path) }
            #expect(asked.count == 6, "the ids and all five stories are asked at once")

            var shown: [Int] = []
            for id in [2, 5, 3, 1, 4] {
                provider.release("v0/item/\(id).json")
                guard let (action, state) = await actions.next() else {
                    Issue.record("the feed ended")
                    return
                }
                if id == 3 {
                    #expect(action == .dropped(id: 3))
                } else {
                    #expect(
                        action
                            == .arrived(
                                JournalStory(
                                    id: id, by: "workshop", time: Date(timeIntervalSince1970: TimeInterval(1_000 + id)),
                                    title: "Story \(id)")))
                    shown.append(id)
                }
                #expect(state.stories.map(\.id) == shown.sorted(by: >), "sorted newest first after story \(id)")
            }
            #expect(await actions.next()?.0 == .loadFinished)
            #expect(feed.currentOutput.stories.map(\.title) == ["Story 5", "Story 4", "Story 2", "Story 1"])
            feed.close()
        }
    }

    @Test("an API that never answers: the list fails after the deadline on the clock, with a calm notice")
    func neverAnswers() async throws {
        try await Self.withProvider { provider, url, http in
            provider.set("v0/newstories.json", .never)
            let clock = TestClock()
            let (feedback, input) = AsyncStream<(JournalFeature.Action, JournalState)>.makeStream()
            let feed = JournalFeed(
                news: .http(baseURL: url, httpClient: http), clock: clock,
                settings: .init(requestTimeout: .seconds(5)), feedback: input)
            var actions = feedback.makeAsyncIterator()
            var requests = provider.requests.makeAsyncIterator()
            feed.store.send(.refresh)
            #expect(await requests.next() == "v0/newstories.json")
            await clock.advance(by: .seconds(5))
            let (action, state) = try #require(await actions.next())
            #expect(action == .listFailed(.addressUnreachable("no answer within 5.0 seconds")))
            #expect(state.notice == "The workshop journal cannot be reached just now; it will be asked again shortly.")
            #expect(feed.currentOutput.notice == state.notice)
            feed.close()
        }
    }
}
