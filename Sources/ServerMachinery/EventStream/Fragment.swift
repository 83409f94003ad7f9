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
        for index in 1..<after.ids.count where old[before.ranges[index]] != new[after.ranges[index]] {
            changed.removeAll { after.ranges[$0].contains(after.ranges[index].lowerBound) }
            changed.append(index)
        }
        guard !changed.isEmpty else { return nil }
        // What is left once the changed elements are cut out must be the same on both sides.
        var oldRest = old
        var newRest = new
        for index in changed.reversed() {
            oldRest.removeSubrange(before.ranges[index])
            newRest.removeSubrange(after.ranges[index])
        }
        guard oldRest == newRest else { return nil }
        return changed.map { .replace(id: after.ids[$0], html: String(new[after.ranges[$0]])) }
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
/// an `id`, in page order, each with its range from `<` to the end of its closing tag.
package struct HTMLElements {
    package private(set) var ids: [String] = []
    package private(set) var ranges: [Range<String.Index>] = []

    package init(_ html: String) {
        var cursor = html.startIndex
        while let attribute = html[cursor...].range(of: " id=\""),
            let close = html[attribute.upperBound...].firstIndex(of: "\"")
        {
            cursor = close
            guard let open = html[..<attribute.lowerBound].lastIndex(of: "<"),
                let range = Self.element(startingAt: open, in: html)
            else { continue }
            ids.append(String(html[attribute.upperBound..<close]))
            ranges.append(range)
        }
    }

    /// The element whose start tag begins at `open`, to the end of its closing tag (or of the
    /// start tag, for an element without one); elements of the same name inside it are counted.
    package static func element(startingAt open: String.Index, in html: String) -> Range<String.Index>? {
        let name = html[html.index(after: open)...].prefix { $0.isLetter || $0.isNumber }
        guard !name.isEmpty, let startEnd = html[open...].firstIndex(of: ">") else { return nil }
        if voidElements.contains(name.lowercased()) { return open..<html.index(after: startEnd) }
        var depth = 0
        var cursor = open
        while let next = html[cursor...].firstIndex(of: "<") {
            let rest = html[html.index(after: next)...]
            if rest.hasPrefix("/\(name)>") {
                depth -= 1
                let end = html.index(next, offsetBy: name.count + 3)
                if depth == 0 { return open..<end }
                cursor = end
            } else {
                if rest.hasPrefix(name), let after = rest.dropFirst(name.count).first, after == " " || after == ">" {
                    depth += 1
                }
                cursor = html.index(after: next)
            }
        }
        return nil
    }

    private static let voidElements: Set<String> = ["img", "input", "br", "hr", "meta", "link", "source", "wbr"]
}
