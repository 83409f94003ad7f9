import Foundation
import NIOCore
import Testing

@testable import luthier_load

@Suite("ServerSentEventParser")
struct ServerSentEventParserTests {
    /// What luthier sends on a kiosk stream: the reconnect hint, a patch, a heartbeat, a
    /// two-line data event and a navigation (the literal ends with the last event's blank line).
    static let stream = """
        retry: 3000

        id: 17
        event: patch
        data: {"fragments":[{"target":"kiosk-orders","html":"<li>LU-7K3M9Q</li>"}]}

        : heartbeat

        event: note
        data: first line
        data:second line

        id: 18
        event: navigate
        data: /checkout


        """

    static func events(of chunks: [String]) -> [ServerSentEventParser.Event] {
        var parser = ServerSentEventParser()
        return chunks.flatMap { parser.feed(ByteBuffer(string: $0)) }
    }

    static func summary(_ events: [ServerSentEventParser.Event]) -> [String] {
        events.map { "\($0.name)|\(String(decoding: $0.data, as: UTF8.self))" }
    }

    static let expected = [
        #"patch|{"fragments":[{"target":"kiosk-orders","html":"<li>LU-7K3M9Q</li>"}]}"#,
        "note|first line\nsecond line",
        "navigate|/checkout",
    ]

    @Test("a stream read whole gives each event with data once; the hint and comments are skipped")
    func whole() {
        #expect(Self.summary(Self.events(of: [Self.stream])) == Self.expected)
    }

    @Test("a stream cut at any byte, into two or into single bytes, gives the same events")
    func cutAnywhere() {
        let bytes = Array(Self.stream.utf8)
        for cut in 0...bytes.count {
            let chunks = [
                String(decoding: bytes[..<cut], as: UTF8.self), String(decoding: bytes[cut...], as: UTF8.self),
            ]
            #expect(Self.summary(Self.events(of: chunks)) == Self.expected, "cut at \(cut)")
        }
        let single = bytes.map { String(decoding: [$0], as: UTF8.self) }
        #expect(Self.summary(Self.events(of: single)) == Self.expected)
    }

    @Test("an event is returned only once its blank line has come")
    func waitsForTheBlankLine() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(ByteBuffer(string: "event: patch\ndata: a\n")).isEmpty)
        let events = parser.feed(ByteBuffer(string: "\nevent: patch\ndata: b"))
        #expect(Self.summary(events) == ["patch|a"])
        #expect(Self.summary(parser.feed(ByteBuffer(string: "\n\n"))) == ["patch|b"])
    }

    @Test("a patch is found by its fragment's target in the bytes, and only by a target it has")
    func containsTarget() throws {
        let patch = try #require(Self.events(of: [Self.stream]).first)
        #expect(patch.contains(Array(#""target":"kiosk-orders""#.utf8)))
        #expect(!patch.contains(Array(#""target":"kiosk-board""#.utf8)))
        #expect(patch.contains([]))
        #expect(!ServerSentEventParser.Event().contains(Array("x".utf8)))
    }
}
