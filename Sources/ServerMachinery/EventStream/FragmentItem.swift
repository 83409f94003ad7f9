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
