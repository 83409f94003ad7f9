import Foundation
import LuthierDomain
import Testing

/// `OutOfLine` keeps an optional behind one reference while reading, comparing and storing it as
/// the optional it wraps.
struct OutOfLineTests {
    struct Holder: Hashable, Codable {
        var name: String
        @OutOfLine var note: Note?
    }

    struct Note: Hashable, Codable {
        var text: String
        var lines: [String]
    }

    @Test func anAbsentPartCostsOneWordInline() {
        #expect(MemoryLayout<OutOfLine<Note>>.size == MemoryLayout<Int>.size)
        #expect(MemoryLayout<Note?>.size > MemoryLayout<OutOfLine<Note>>.size)
    }

    @Test func valuesAreComparedAndHashedAsTheOptional() {
        let one = Holder(name: "a", note: Note(text: "x", lines: ["1"]))
        let same = Holder(name: "a", note: Note(text: "x", lines: ["1"]))
        var other = one
        other.note?.text = "y"

        #expect(one == same)
        #expect(one.hashValue == same.hashValue)
        #expect(one != other)
        #expect(one.note?.text == "x", "a change to a copy leaves the original as it was")
        #expect(Holder(name: "a", note: nil) != one)
        #expect(Holder(name: "a", note: nil) == Holder(name: "a", note: nil))
    }

    @Test func anAbsentPartIsStoredAsAnAbsentKey() throws {
        let encoded = try JSONEncoder().encode(Holder(name: "a", note: nil))
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"name":"a"}"#)

        let decoded = try JSONDecoder().decode(Holder.self, from: Data(#"{"name":"a"}"#.utf8))
        #expect(decoded == Holder(name: "a", note: nil))
    }

    @Test func aPresentPartIsStoredAsItsValue() throws {
        let holder = Holder(name: "a", note: Note(text: "x", lines: ["1", "2"]))
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let encoded = try encoder.encode(holder)
        #expect(String(decoding: encoded, as: UTF8.self) == #"{"name":"a","note":{"lines":["1","2"],"text":"x"}}"#)
        #expect(try JSONDecoder().decode(Holder.self, from: encoded) == holder)
        #expect(try JSONDecoder().decode(Holder.self, from: Data(#"{"name":"a","note":null}"#.utf8)).note == nil)
    }
}
