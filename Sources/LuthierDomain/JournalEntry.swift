import Foundation

/// A story to write into the journal: who, what and where to read more. The workshop's own
/// stories are made here from what happened, so that both stores only write them.
public struct JournalEntry: Hashable, Sendable {
    public var by: String
    public var title: String
    public var url: String?

    /// The longest title, in characters.
    public static let longestTitle = 200
    /// The longest link, in characters.
    public static let longestURL = 500

    init(by: String, title: String, url: String? = nil) {
        self.by = by
        self.title = title
        self.url = url
    }

    /// The story of an order reaching `stage`, for the stages worth telling: Setup (the last
    /// stage in the workshop) and Shipped. The guitar, never the order's number or customer.
    public static func reached(_ stage: OrderStatus, by order: Order) -> JournalEntry? {
        let guitar = order.lines.first.map { $0.guitar.description } ?? "A guitar"
        let more = order.guitarCount > 1 ? " (and \(order.guitarCount - 1) more)" : ""
        switch stage {
        case .setup:
            return JournalEntry(by: "workshop", title: "In setup: \(guitar)\(more) gets its strings and action")
        case .shipped: return JournalEntry(by: "workshop", title: "Shipped: \(guitar)\(more) is on its way")
        default: return nil
        }
    }

    /// The story of a restock of `pieces` of `wood`.
    public static func restocked(_ wood: StockedWood, pieces: Int) -> JournalEntry {
        JournalEntry(by: "workshop", title: "Restocked: \(pieces) \(wood.stockName)")
    }

    /// The story of `wood` running out.
    public static func ranOut(_ wood: StockedWood) -> JournalEntry {
        JournalEntry(
            by: "workshop", title: "Out of \(wood.stockName): new builds with it wait for the next delivery")
    }

    /// A story the owner adds: a title of 1–200 characters on one line, and optionally an
    /// `http(s)` link.
    ///
    /// - Throws: `JournalRefusal` naming what is wrong.
    public static func owner(title: String, url: String? = nil) throws(JournalRefusal) -> JournalEntry {
        if let problem = title.oneLineProblem(longest: longestTitle) { throw .title(problem: problem) }
        if let url, !isAllowedLink(url) { throw .url(url) }
        return JournalEntry(by: "owner", title: title.trimmingCharacters(in: .whitespaces), url: url)
    }

    /// Whether `url` may be a story's link: an `http` or `https` address with a host, of at most
    /// `longestURL` characters (never `javascript:`, `data:` or a protocol-relative `//host`).
    public static func isAllowedLink(_ url: String) -> Bool {
        guard url.count <= longestURL, url.utf8.count <= String.bytesAllowed(forCharacters: longestURL),
            let components = URLComponents(string: url),
            ["http", "https"].contains(components.scheme?.lowercased() ?? ""), components.host?.isEmpty == false
        else { return false }
        return !url.unicodeScalars.contains { $0.properties.generalCategory == .control || $0 == " " }
    }

    /// The stories of the owner's adjustment of `wood` by `change`: a restock when it adds, and
    /// the wood running out when it takes the last pieces away.
    public static func adjusted(_ wood: StockedWood, by change: Int, inStockAfter: Int) -> [JournalEntry] {
        if change > 0 { return [restocked(wood, pieces: change)] }
        return inStockAfter == 0 ? [ranOut(wood)] : []
    }

    /// The woods an order running on `stock` (as it was before) takes the last pieces of.
    public static func ranOut(taking needs: [WoodNeed], from stock: [StockedWood: Int]) -> [JournalEntry] {
        needs.filter { need in (stock[need.wood] ?? 0) > 0 && stock[need.wood] == need.count }.map { ranOut($0.wood) }
    }
}
