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
}
