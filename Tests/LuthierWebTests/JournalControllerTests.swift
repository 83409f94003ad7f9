import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierWeb

/// The workshop journal's read API over real HTTP, in Hacker News's format.
@Suite("JournalController over HTTP")
struct JournalControllerTests {
    @Test("newstories.json lists the ids newest first, and each item is a story in Hacker News's format")
    func readAPI() async throws {
        let journal = MemoryJournal(now: { Date(timeIntervalSince1970: 1_800_000_000.7) })
        _ = try await journal.client.add(try JournalEntry.owner(title: "Open day", url: "https://example.com/open"))
        _ = try await journal.client.add(JournalEntry.restocked(.body(.koa), pieces: 3))
        try await TestApp.run(journal: journal.client) { app in
            let list = try await app.get("/api/v0/newstories.json")
            #expect(list.status == 200)
            #expect(list.header("Content-Type") == "application/json; charset=utf-8")
            #expect(list.header("Cache-Control") == "no-cache")
            #expect(list.text == "[2,1]")
            let item = try await app.get("/api/v0/item/1.json")
            #expect(item.status == 200)
            #expect(
                item.text
                    == #"{"by":"owner","id":1,"time":1800000000,"title":"Open day","type":"story","url":"https://example.com/open"}"#
            )
            let story = try JSONDecoder().decode(JournalStory.self, from: Data(item.text.utf8))
            #expect(story.title == "Open day")
            #expect(try await app.get("/api/v0/item/2.json").text.contains(#""by":"workshop""#))
        }
    }

    @Test("an item that is not there is null with 404; an id that is not a number is 400 with its sentence")
    func missingAndBadItems() async throws {
        try await TestApp.run { app in
            #expect(try await app.get("/api/v0/newstories.json").text == "[]")
            let missing = try await app.get("/api/v0/item/7.json")
            #expect(missing.status == 404)
            #expect(missing.text == "null")
            for bad in ["abc", "0", "-3", "1e3"] {
                let response = try await app.get("/api/v0/item/\(bad).json")
                #expect(response.status == 400, "\(bad)")
                #expect(response.text.contains("is not a story id; ids are whole numbers from 1."), "\(bad)")
            }
            #expect(try await app.get("/api/v0/item/1").status == 404)
        }
    }
}
