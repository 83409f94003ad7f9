import Foundation
import Testing

@testable import LuthierDomain

/// A story as Hacker News's API writes and reads it.
@Suite struct JournalStoryTests {
    @Test func itIsWrittenInHackerNewssFormat() throws {
        let story = JournalStory(
            id: 7, by: "owner", time: Date(timeIntervalSince1970: 1_800_000_000), title: "Open day",
            url: "https://example.com/open")
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        #expect(
            String(decoding: try encoder.encode(story), as: UTF8.self)
                == #"{"by":"owner","id":7,"time":1800000000,"title":"Open day","type":"story","url":"https://example.com/open"}"#
        )
        #expect(try JSONDecoder().decode(JournalStory.self, from: encoder.encode(story)) == story)
    }

    @Test func itReadsAnyHackerNewsStoryAndRefusesWhatIsNotOne() throws {
        let hn =
            #"{"by":"dhouston","descendants":71,"id":8863,"kids":[9224],"score":104,"time":1175714200,"title":"My YC app: Dropbox","type":"story","url":"http://www.getdropbox.com/u/2/screencast.html"}"#
        let story = try JSONDecoder().decode(JournalStory.self, from: Data(hn.utf8))
        #expect(story.id == 8863)
        #expect(story.title == "My YC app: Dropbox")
        #expect(story.time == Date(timeIntervalSince1970: 1_175_714_200))
        let comment =
            #"{"by":"norvig","id":2921983,"parent":2921506,"text":"Aw shucks","time":1314211127,"type":"comment"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JournalStory.self, from: Data(comment.utf8)) }
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JournalStory.self, from: Data("null".utf8)) }
    }

    @Test func newerMeansLaterThenHigherID() {
        let early = JournalStory(id: 9, by: "", time: Date(timeIntervalSince1970: 10), title: "a")
        let late = JournalStory(id: 1, by: "", time: Date(timeIntervalSince1970: 20), title: "b")
        let sameSecond = JournalStory(id: 10, by: "", time: Date(timeIntervalSince1970: 10), title: "c")
        #expect(JournalStory.isNewer(late, early))
        #expect(JournalStory.isNewer(sameSecond, early))
        #expect(!JournalStory.isNewer(early, late))
    }
}
