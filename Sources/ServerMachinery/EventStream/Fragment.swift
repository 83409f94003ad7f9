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

    /// The fragment with `edits` as its items only when they send fewer bytes than `html`: edits
    /// to most of a list cost more than the list, which then goes whole.
    public init(target: String, html: String, editsIfSmaller edits: [FragmentItem]?) {
        let worthIt = edits.map { $0.reduce(0) { $0 + $1.size } < html.utf8.count } ?? false
        self.init(target: target, html: html, items: worthIt ? edits : nil)
    }
}
