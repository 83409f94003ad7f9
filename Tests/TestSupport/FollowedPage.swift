import ServerMachinery

/// What a page that follows an event stream shows: each fragment's HTML, with every patch applied
/// as the page script applies it, a keyed list's edits included. Tests read a stream through it
/// to assert what a person sees, whichever form (whole or edits) a change was sent in.
package struct FollowedPage: Sendable, Equatable {
    package private(set) var fragments: [String: String] = [:]

    package init(_ fragments: [String: String] = [:]) {
        self.fragments = fragments
    }

    package func html(_ target: String) -> String? { fragments[target] }

    /// Applies `patch`; an edit of a fragment or an item the page lacks is skipped, as the page
    /// script skips an element it cannot find.
    package mutating func apply(_ patch: Patch) {
        for fragment in patch.fragments {
            guard let edits = fragment.edits else {
                fragments[fragment.target] = fragment.html
                continue
            }
            guard var html = fragments[fragment.target] else { continue }
            for edit in edits { Self.apply(edit, to: &html) }
            fragments[fragment.target] = html
        }
    }

    /// The content of the element whose id is `id` in a whole page (what a fragment targeting it
    /// holds), or nil when the page has none.
    package static func content(ofElement id: String, in page: String) -> String? {
        guard let range = element(id, in: page), let startEnd = page[range].firstIndex(of: ">"),
            let closing = page[range].lastIndex(of: "<")
        else { return nil }
        return String(page[page.index(after: startEnd)..<closing])
    }

    /// `patch` as this page shows it once applied: the same targets, each with its whole HTML.
    package func shown(_ patch: Patch) -> Patch {
        Patch(fragments: patch.fragments.map { .init(target: $0.target, html: fragments[$0.target] ?? "") })
    }

    // An item is its element and the line end after it, as the list's template writes each one;
    // an edit puts the item's HTML as sent (with its line end), so the page reads exactly as the
    // whole list rendered now.
    private static func apply(_ edit: Patch.ListEdit, to html: inout String) {
        let current = item(edit.id, in: html)
        if edit.isRemoval {
            if let current { html.removeSubrange(current) }
            return
        }
        guard let item = edit.html else { return }
        if let current, edit.isPut {
            html.replaceSubrange(current, with: item)
        } else if let part = element(edit.id, in: html) {
            html.replaceSubrange(part, with: item)
        } else if !edit.isPut {
            return
        } else if let after = edit.after {
            html.insert(contentsOf: item, at: Self.item(after, in: html)?.upperBound ?? listEnd(in: html))
        } else {
            html.insert(contentsOf: item, at: listStart(in: html))
        }
    }

    /// The element whose id is `id`.
    private static func element(_ id: String, in html: String) -> Range<String.Index>? {
        guard let attribute = html.range(of: " id=\"\(id)\""),
            let open = html[..<attribute.lowerBound].lastIndex(of: "<")
        else { return nil }
        return element(startingAt: open, in: html)
    }

    /// The element whose id is `id`, with the line end after it.
    private static func item(_ id: String, in html: String) -> Range<String.Index>? {
        guard let attribute = html.range(of: " id=\"\(id)\""),
            let open = html[..<attribute.lowerBound].lastIndex(of: "<"),
            let element = element(startingAt: open, in: html)
        else { return nil }
        let end = html[element.upperBound...].first == "\n" ? html.index(after: element.upperBound) : element.upperBound
        return open..<end
    }

    /// Just inside the list's element (`data-items`) and its line end, or the fragment's start.
    private static func listStart(in html: String) -> String.Index {
        guard let marker = html.range(of: " data-items"), let close = html[marker.upperBound...].firstIndex(of: ">")
        else { return html.startIndex }
        let inside = html.index(after: close)
        return html[inside...].first == "\n" ? html.index(after: inside) : inside
    }

    /// Just before the list's element closes, or the fragment's end.
    private static func listEnd(in html: String) -> String.Index {
        guard let marker = html.range(of: " data-items"), let open = html[..<marker.lowerBound].lastIndex(of: "<"),
            let list = element(startingAt: open, in: html), let closing = html[list].lastIndex(of: "<")
        else { return html.endIndex }
        return closing
    }

    private static func element(startingAt open: String.Index, in html: String) -> Range<String.Index>? {
        let utf8 = html.utf8
        let offset = utf8.distance(from: utf8.startIndex, to: open)
        guard let range = HTMLElements.element(startingAt: offset, in: Array(utf8)) else { return nil }
        return utf8.index(
            utf8.startIndex, offsetBy: range.lowerBound)..<utf8.index(
                utf8.startIndex, offsetBy: range.upperBound)
    }
}
