/// A piece of rendered HTML and the id of the element whose content it replaces.
public struct Fragment: Hashable, Sendable {
    public var target: String
    public var html: String

    public init(target: String, html: String) {
        self.target = target
        self.html = html
    }
}
