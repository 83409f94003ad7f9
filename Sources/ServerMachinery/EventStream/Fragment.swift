/// A piece of rendered HTML and the id of the element whose content it replaces.
public struct Fragment: Hashable, Sendable {
    public var target: String
    public var html: String
    /// The same change as edits to the keyed list the element holds, for a page that shows the
    /// version just before this change: a changed line of a twenty-line cart is one line, not
    /// twenty. Nil for a fragment that is not a list, or whose change is smaller sent whole. A
    /// page further behind gets `html`, which is always the whole of the element's new content.
    public var items: [FragmentItem]?

    public init(target: String, html: String, items: [FragmentItem]? = nil) {
        self.target = target
        self.html = html
        self.items = items
    }

    /// This fragment as a page that may be any number of versions behind takes it: whole.
    public var whole: Fragment { items == nil ? self : Fragment(target: target, html: html) }
}

/// How a change of a fragment is told to someone who cannot see it: the page script reads the
/// fragment's new text into a live region of this kind, once a fast run of changes has settled.
public enum FragmentAnnouncement: String, Sendable {
    /// Said when the reader is idle (`aria-live="polite"`): a price, a description.
    case polite
    /// A status message (`role="status"`): the checkout's state.
    case status
}

/// One edit to a keyed list: each item is an element with an id of its own, inside the element
/// a fragment targets.
public enum FragmentItem: Hashable, Sendable {
    /// The element `id` is now `html` (its outer HTML): replaced where it stands, or, when the
    /// page has no such element, inserted after the element `after` (first in the list for nil).
    case put(id: String, html: String, after: String?)
    /// The element `id`, inside an item, is now `html`: replaced where it stands, and skipped by
    /// a page that has no such element (a changed quantity is its number, not its whole line).
    case replace(id: String, html: String)
    /// The element `id` is gone.
    case remove(id: String)
}

extension FragmentItem {
    /// The edits that turn a keyed list `old` into `new`: the items gone, then every item new or
    /// changed in the new order, each placed after the one before it. Nil when the lists cannot be
    /// told apart that way (an id twice in one list, or the items both hold in another order);
    /// the list is then sent whole.
    ///
    /// - Parameters:
    ///   - id: an item's element id, unique in its list.
    ///   - render: an item's outer HTML; called for the new and changed items only.
    public static func edits<Item: Equatable>(
        from old: [Item], to new: [Item], id: (Item) -> String, render: (Item) -> String
    ) -> [FragmentItem]? {
        let oldIDs = old.map(id)
        let newIDs = new.map(id)
        var oldByID: [String: Item] = [:]
        for (index, item) in old.enumerated() where oldByID.updateValue(item, forKey: oldIDs[index]) != nil {
            return nil
        }
        let kept = Set(newIDs)
        guard kept.count == newIDs.count,
            oldIDs.filter(kept.contains) == newIDs.filter({ oldByID[$0] != nil })
        else { return nil }
        var edits = oldIDs.filter { !kept.contains($0) }.map { FragmentItem.remove(id: $0) }
        for (index, item) in new.enumerated() {
            let before = oldByID[newIDs[index]]
            guard before != item else { continue }
            let html = render(item)
            if let before, let replacements = replacements(from: render(before), to: html) {
                edits += replacements
            } else {
                edits.append(.put(id: newIDs[index], html: html, after: index > 0 ? newIDs[index - 1] : nil))
            }
        }
        return edits
    }

    /// The elements with ids inside an item that changed, each replaced whole, when they are all
    /// that changed: nil when something else did (then the item goes whole). The first element
    /// of each markup is the item itself, and is not one of them.
    static func replacements(from old: String, to new: String) -> [FragmentItem]? {
        let before = HTMLElements(old)
        let after = HTMLElements(new)
        guard before.ids == after.ids, before.ids.count > 1 else { return nil }
        // The smallest changed elements, in page order: an element containing another changed one
        // is left to the check below.
        var changed: [Int] = []
        for index in 1..<after.ids.count where before.bytes(index) != after.bytes(index) {
            changed.removeAll { after.ranges[$0].contains(after.ranges[index].lowerBound) }
            changed.append(index)
        }
        guard !changed.isEmpty else { return nil }
        // What is left once the changed elements are cut out must be the same on both sides.
        guard before.bytes(without: changed) == after.bytes(without: changed) else { return nil }
        return changed.map { .replace(id: after.ids[$0], html: String(decoding: after.bytes($0), as: UTF8.self)) }
    }

    /// About how many bytes the edit sends.
    public var size: Int {
        switch self {
        case .put(let id, let html, let after): id.utf8.count + html.utf8.count + (after?.utf8.count ?? 4) + 24
        case .replace(let id, let html): id.utf8.count + html.utf8.count + 24
        case .remove(let id): id.utf8.count + 24
        }
    }
}

/// The elements of a piece of trusted, well-formed markup (the server's own templates) that carry
/// an `id`, in page order, each with its range of bytes from `<` to the end of its closing tag.
/// It reads UTF-8 bytes: every character it looks for is ASCII.
package struct HTMLElements {
    package let html: [UInt8]
    package private(set) var ids: [String] = []
    package private(set) var ranges: [Range<Int>] = []

    package init(_ markup: String) {
        html = Array(markup.utf8)
        let attribute = Array(#" id=""#.utf8)
        var cursor = 0
        while let start = Self.find(attribute, in: html, from: cursor),
            let close = html[(start + attribute.count)...].firstIndex(of: UInt8(ascii: "\""))
        {
            cursor = close
            guard let open = html[..<start].lastIndex(of: UInt8(ascii: "<")),
                let range = Self.element(startingAt: open, in: html)
            else { continue }
            ids.append(String(decoding: html[(start + attribute.count)..<close], as: UTF8.self))
            ranges.append(range)
        }
    }

    /// The bytes of the element at `index`.
    package func bytes(_ index: Int) -> ArraySlice<UInt8> { html[ranges[index]] }

    /// The markup with the elements at `indices` (disjoint, in page order) cut out.
    func bytes(without indices: [Int]) -> [UInt8] {
        var rest: [UInt8] = []
        rest.reserveCapacity(html.count)
        var cursor = 0
        for index in indices {
            rest += html[cursor..<ranges[index].lowerBound]
            cursor = ranges[index].upperBound
        }
        rest += html[cursor...]
        return rest
    }

    /// The element whose start tag begins at `open`, to the end of its closing tag (or of the
    /// start tag, for a void element); elements of the same name inside it are counted.
    package static func element(startingAt open: Int, in html: [UInt8]) -> Range<Int>? {
        let nameStart = open + 1
        var nameEnd = nameStart
        while nameEnd < html.count, isNameByte(html[nameEnd]) { nameEnd += 1 }
        guard nameEnd > nameStart, let startEnd = html[open...].firstIndex(of: UInt8(ascii: ">")) else { return nil }
        let name = html[nameStart..<nameEnd]
        if voidElements.contains(where: { $0.elementsEqual(name.lazy.map { $0 | 0x20 }) }) {
            return open..<(startEnd + 1)
        }
        let closing = [UInt8(ascii: "<"), UInt8(ascii: "/")] + name + [UInt8(ascii: ">")]
        var depth = 0
        var cursor = open
        while let next = html[cursor...].firstIndex(of: UInt8(ascii: "<")) {
            if html[next...].starts(with: closing) {
                depth -= 1
                if depth == 0 { return open..<(next + closing.count) }
                cursor = next + closing.count
            } else {
                let after = next + 1 + name.count
                if html[(next + 1)...].starts(with: name), after < html.count,
                    html[after] == UInt8(ascii: " ") || html[after] == UInt8(ascii: ">")
                {
                    depth += 1
                }
                cursor = next + 1
            }
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
    }

    private static func find(_ needle: [UInt8], in html: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= html.count else { return nil }
        var index = start
        while index + needle.count <= html.count {
            guard let candidate = html[index...].firstIndex(of: first), candidate + needle.count <= html.count else {
                return nil
            }
            if html[candidate..<(candidate + needle.count)].elementsEqual(needle) { return candidate }
            index = candidate + 1
        }
        return nil
    }

    private static let voidElements = ["img", "input", "br", "hr", "meta", "link", "source", "wbr"].map {
        Array($0.utf8)
    }
}
