import Foundation
import NIOCore
import Testing

@testable import ServerMachinery

/// A keyed list's edits: what turns one list into the next, how a store sends them only to a
/// stream one version behind, and how a patch writes them.
@Suite("FragmentItem")
struct FragmentItemTests {
    struct Line: Equatable {
        let id: String
        let quantity: Int
    }

    static func edits(_ old: [Line], _ new: [Line]) -> [FragmentItem]? {
        FragmentItem.edits(from: old, to: new, id: { "line-\($0.id)" }) {
            "<li id=\"line-\($0.id)\">\($0.quantity)</li>"
        }
    }

    static let lines = (1...20).map { Line(id: "\($0)", quantity: 1) }

    @Test("one changed item of twenty is one put, where it stands")
    func oneChanged() {
        var new = Self.lines
        new[7] = Line(id: "8", quantity: 3)
        #expect(Self.edits(Self.lines, new) == [.put(id: "line-8", html: "<li id=\"line-8\">3</li>", after: "line-7")])
        #expect(Self.edits(Self.lines, Self.lines) == [])
    }

    @Test("an added item is put after the one before it, or first; a removed one is a removal")
    func insertionsAndRemovals() {
        let added = Self.lines + [Line(id: "new", quantity: 1)]
        #expect(
            Self.edits(Self.lines, added) == [
                .put(id: "line-new", html: "<li id=\"line-new\">1</li>", after: "line-20")
            ])
        let first = [Line(id: "top", quantity: 2)] + Self.lines
        #expect(Self.edits(Self.lines, first) == [.put(id: "line-top", html: "<li id=\"line-top\">2</li>", after: nil)])
        var removed = Self.lines
        removed.remove(at: 4)
        #expect(Self.edits(Self.lines, removed) == [.remove(id: "line-5")])
        // Removals first, then the puts in the new order, so that each put's `after` is there.
        let both = [Line(id: "a", quantity: 1), Line(id: "b", quantity: 1)] + Self.lines.dropFirst(2)
        #expect(
            Self.edits(Self.lines, Array(both)) == [
                .remove(id: "line-1"), .remove(id: "line-2"),
                .put(id: "line-a", html: "<li id=\"line-a\">1</li>", after: nil),
                .put(id: "line-b", html: "<li id=\"line-b\">1</li>", after: "line-a"),
            ])
    }

    @Test("a list whose kept items moved, or with an id twice, has no edits: it goes whole")
    func notExpressible() {
        #expect(Self.edits(Self.lines, Self.lines.reversed()) == nil)
        #expect(Self.edits(Self.lines, Self.lines + [Self.lines[0]]) == nil)
        #expect(Self.edits(Self.lines + [Self.lines[0]], Self.lines) == nil)
    }

    @Test("a stream one version behind gets a list's edits; a new one, or one further behind, its whole HTML")
    func storeSendsEditsOneBehind() {
        let store = FragmentStore(initial: [Fragment(target: "cart-lines", html: "<ul>20 lines</ul>")])
        let start = store.version
        let edits: [FragmentItem] = [.put(id: "line-8", html: "<li id=\"line-8\">3</li>", after: "line-7")]
        store.publish([Fragment(target: "cart-lines", html: "<ul>20 lines, one changed</ul>", items: edits)])
        #expect(store.changes(since: start).fragments.map(\.items) == [edits])
        #expect(
            store.changes(since: 0).fragments == [
                Fragment(target: "cart-lines", html: "<ul>20 lines, one changed</ul>")
            ])

        // A second change that is not a list's: the edits were the first change's, and a stream
        // two behind gets the list whole.
        store.publish([Fragment(target: "cart-badge", html: "20")])
        #expect(store.changes(since: start).fragments.map(\.items) == [nil, nil])
        #expect(store.changes(since: start + 1).fragments == [Fragment(target: "cart-badge", html: "20")])

        // The event a stream one behind is sent names the edits, and not the whole list.
        store.publish([Fragment(target: "cart-lines", html: "<ul>whole</ul>", items: [.remove(id: "line-8")])])
        let event = String(buffer: store.patchEvent(since: start + 2).patch ?? ByteBuffer())
        #expect(event.contains("\"items\":[{\"id\":\"line-8\",\"remove\":true}]"))
        #expect(!event.contains("whole"))
    }

    @Test("a patch writes a list's edits as items: a put with where it goes, a removal")
    func encoding() throws {
        let event = ServerSentEvent.patch(
            id: 9,
            fragments: [
                Fragment(
                    target: "cart-lines", html: "ignored",
                    items: [
                        .remove(id: "line-1"), .put(id: "line-2", html: "<li id=\"line-2\">2</li>", after: nil),
                        .put(id: "line-3", html: "<li>3</li>", after: "line-2"),
                    ]),
                Fragment(target: "cart-badge", html: "3"),
            ])
        let data = try #require(event.split(separator: "\n").first { $0.hasPrefix("data: ") }?.dropFirst(6))
        let json = try #require(try JSONSerialization.jsonObject(with: Data(data.utf8)) as? [String: Any])
        let fragments = try #require(json["fragments"] as? [[String: Any]])
        #expect(fragments[0]["html"] == nil)
        let items = try #require(fragments[0]["items"] as? [[String: Any]])
        #expect(items.count == 3)
        #expect(items[0]["id"] as? String == "line-1" && items[0]["remove"] as? Bool == true)
        #expect(items[1]["after"] is NSNull && items[1]["html"] as? String == "<li id=\"line-2\">2</li>")
        #expect(items[2]["after"] as? String == "line-2")
        #expect(fragments[1]["html"] as? String == "3")
    }
}
