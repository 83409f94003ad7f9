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

    @Test("GET /journal and the kiosk show the journal; a story added shows on the kiosk's stream at the next refresh")
    func journalPageAndKioskPanel() async throws {
        let journal = MemoryJournal(now: { Date(timeIntervalSince1970: 1_800_000_000) })
        _ = try await journal.client.add(
            try JournalEntry.owner(title: "Open day on Saturday", url: "https://example.com/open"))
        try await TestApp.run(journal: journal.client) { app in
            // The reader's first load, on its own (no clock involved when the journal answers at once).
            let (kioskStream, _, opening) = try await KioskControllerTests.openKiosk(app)
            var panel = opening.html("journal-stories") ?? ""
            if !panel.contains("Open day on Saturday") {
                panel =
                    try await KioskControllerTests.patch(on: kioskStream, "the first load") {
                        $0.html("journal-stories")?.contains("Open day on Saturday") == true
                    }.html("journal-stories") ?? ""
            }
            #expect(panel.contains(#"<a href="https://example.com/open" rel="noopener">Open day on Saturday</a>"#))

            let page = try await app.get("/journal")
            #expect(page.status == 200)
            #expect(page.text.contains("<h1>The workshop journal</h1>"))
            #expect(page.text.contains(#"data-events="/kiosk/events""#))
            #expect(page.text.contains("Open day on Saturday"), "without JavaScript, the page has the stories")
            #expect(try await app.get("/").text.contains(#"<a href="/journal">the workshop journal</a>"#))
            let kiosk = try await app.get("/kiosk")
            #expect(kiosk.text.contains("From the workshop journal"))
            #expect(kiosk.text.contains(panel))

            // A restock's story, then the reader's next refresh: on every kiosk, newest first.
            _ = try await journal.client.add(JournalEntry.restocked(.body(.koa), pieces: 5))
            try await KioskControllerTests.advanceShowroom(app, by: JournalFeature.Settings().refreshInterval)
            let refreshed = try await KioskControllerTests.patch(on: kioskStream, "the restock's story") {
                $0.html("journal-stories")?.contains("Restocked: 5 Koa body blanks") == true
            }
            let html = try #require(refreshed.html("journal-stories"))
            let restock = try #require(html.range(of: "Restocked: 5 Koa body blanks"))
            let openDay = try #require(html.range(of: "Open day on Saturday"))
            #expect(restock.lowerBound < openDay.lowerBound, "newest first")
            await kioskStream.close()
        }
    }
}
