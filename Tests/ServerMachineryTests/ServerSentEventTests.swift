import Foundation
import TestSupport
import Testing

@testable import ServerMachinery

@Suite("ServerSentEvent")
struct ServerSentEventTests {
    static let awkward =
        "say \"hi\"\nnext line\r\tand \\ backslash </script><!-- \u{2028}\u{2029} \u{0}\u{1F} é 🎸"

    @Test("a patch is one event with an id, the event name and one data line")
    func patchFraming() throws {
        let text = ServerSentEvent.patch(id: 7, fragments: [Fragment(target: "guitar-price", html: Self.awkward)])
        #expect(text.hasPrefix("id: 7\nevent: patch\ndata: {"))
        #expect(text.hasSuffix("}\n\n"))
        let lines = text.dropLast(2).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3)
        #expect(!text.contains("\r"))
        #expect(!text.contains("\u{2028}") && !text.contains("\u{2029}"))
    }

    @Test("the JSON escapes quotes, control characters, < and U+2028/U+2029, and round-trips")
    func jsonEscaping() throws {
        let json = ServerSentEvent.jsonString(Self.awkward)
        #expect(json.contains("\\\"hi\\\""))
        #expect(json.contains("\\n") && json.contains("\\r") && json.contains("\\t"))
        #expect(json.contains("\\\\ backslash"))
        #expect(json.contains("\\u003c/script>"))
        #expect(!json.contains("<"))
        #expect(json.contains("\\u2028") && json.contains("\\u2029"))
        #expect(json.contains("\\u0000") && json.contains("\\u001f"))
        #expect(json.contains("é 🎸"))
        let decoded = try JSONDecoder().decode(String.self, from: Data(json.utf8))
        #expect(decoded == Self.awkward)
    }

    @Test("random text of every kind round-trips through the byte-level escaping")
    func randomRoundTrips() throws {
        // Seeded, so that a failure replays: ASCII, controls, `<`, E2-led scalars near U+2028.
        var generator = SeededGenerator(seed: 2_028)
        let alphabet: [Character] = [
            "a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "<", ">", "&", "\u{0}", "\u{1B}", "\u{7F}", "é",
            "\u{2027}", "\u{2028}", "\u{2029}", "\u{202A}", "\u{20AC}", "🎸", "\u{FFFD}",
        ]
        for _ in 0..<500 {
            let length = Int.random(in: 0...40, using: &generator)
            let text = String((0..<length).map { _ in alphabet.randomElement(using: &generator) ?? "a" })
            let json = ServerSentEvent.jsonString(text)
            #expect(!json.contains("<") && !json.contains("\u{2028}") && !json.contains("\u{2029}"))
            #expect(try JSONDecoder().decode(String.self, from: Data(json.utf8)) == text)
        }
    }

    @Test("the patch parses back to its fragments through the test client's parser")
    func roundTrip() throws {
        let fragments = [
            Fragment(target: "guitar-description", html: Self.awkward),
            Fragment(target: "picker-shape", html: "<input value=\"longV\" checked>"),
        ]
        var parser = EventStreamParser()
        parser.append(Array(ServerSentEvent.patch(id: 3, fragments: fragments).utf8))
        let taken = parser.takeEvent()
        let event = try #require(taken)
        #expect(event.id == "3")
        let patch = try event.patch()
        #expect(patch.fragments.map { Fragment(target: $0.target, html: $0.html) } == fragments)
        #expect(parser.takeEvent() == nil)
    }

    @Test("retry and heartbeat lines")
    func retryAndHeartbeat() {
        #expect(ServerSentEvent.retry(milliseconds: 2_000) == "retry: 2000\n\n")
        #expect(ServerSentEvent.heartbeat.hasPrefix(":"))
        #expect(ServerSentEvent.heartbeat.hasSuffix("\n\n"))
        var parser = EventStreamParser()
        parser.append(Array((ServerSentEvent.retry(milliseconds: 5) + ServerSentEvent.heartbeat).utf8))
        #expect(parser.takeEvent() == ReceivedEvent(retry: "5"))
        #expect(parser.takeEvent() == ReceivedEvent(comments: ["heartbeat"]))
    }

    @Test("the test client's parser handles events split anywhere and CRLF line ends")
    func parserSplits() throws {
        let text = "id: 1\r\nevent: patch\r\ndata: {\"fragments\":[]}\r\n\r\n: c\n\n"
        let bytes = Array(text.utf8)
        for split in 0...bytes.count {
            var parser = EventStreamParser()
            parser.append(bytes[..<split])
            var events: [ReceivedEvent] = []
            while let event = parser.takeEvent() { events.append(event) }
            parser.append(bytes[split...])
            while let event = parser.takeEvent() { events.append(event) }
            #expect(
                events == [
                    ReceivedEvent(id: "1", event: "patch", data: ["{\"fragments\":[]}"]),
                    ReceivedEvent(comments: ["c"]),
                ],
                "split at \(split)"
            )
        }
    }
}
