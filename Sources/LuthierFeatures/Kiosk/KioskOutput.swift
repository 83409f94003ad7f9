import Foundation
import LuthierDomain

/// Everything the kiosk screen shows, derived from `KioskState` by a pure function.
public struct KioskOutput: Hashable, Sendable {
    public var showcase: KioskShowcase
    /// The latest orders, newest first, anonymous.
    public var recentOrders: [KioskOrderRow]
    /// Orders in progress, one column per stage before shipping.
    public var board: [KioskStageColumn]
    public var guitarsOrderedToday: Int
    public var guitarsInCarts: Int
    public var liveSessions: Int

    public init(state: KioskState) {
        showcase = KioskShowcase(state.showcase)
        recentOrders = KioskOrderRow.rows(of: state.floor.recentOrders, now: state.now)
        board = KioskStageColumn.columns(of: state.floor.inProgress)
        guitarsOrderedToday = state.floor.guitarsOrderedToday
        guitarsInCarts = state.counters.guitarsInCarts
        liveSessions = state.counters.liveSessions
    }

    /// "just now", "1 min ago", "12 min ago", "3 h ago", "2 d ago": coarse on purpose, so the
    /// screen changes at most once a minute per order.
    public static func ago(_ date: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case ..<60: return "just now"
        case ..<3_600: return "\(seconds / 60) min ago"
        case ..<86_400: return "\(seconds / 3_600) h ago"
        default: return "\(seconds / 86_400) d ago"
        }
    }
}

/// The big guitar.
public struct KioskShowcase: Hashable, Sendable {
    public var heading: String
    public var isAttract: Bool
    public var artwork: GuitarArtwork
    public var description: String
    public var price: String

    init(_ showcase: KioskState.Showcase) {
        let guitar: Guitar
        switch showcase {
        case .building(let built):
            guitar = built
            heading = "Now building"
            isAttract = false
        case .attract(let index):
            guitar = KioskState.attractGuitars[index % KioskState.attractGuitars.count]
            heading = "From the workshop"
            isAttract = true
        }
        artwork = GuitarArtwork(guitar: guitar)
        description = guitar.description
        price = guitar.price.formatted()
    }
}

/// One of the latest orders, without anything that identifies its customer.
public struct KioskOrderRow: Hashable, Sendable {
    /// The row's id on the screen, unique among the rows: when the order was placed, in
    /// milliseconds (with a suffix for a second order of the same millisecond). Not the order's
    /// number, which the screen never shows; it lets a new order be sent as one row.
    public var key: String
    public var description: String
    public var amount: String
    public var ago: String
    public var stage: String

    init(order: Order, now: Date, key: String) {
        self.key = key
        description = KioskBoardCard.summary(of: order)
        amount = order.quote.total.formatted()
        ago = KioskOutput.ago(order.placedAt, now: now)
        stage = order.status.label
    }

    /// The rows of `orders`, newest first, each with its key. Keys are given oldest first, so that
    /// a row keeps its key when newer orders of the same millisecond come above it.
    static func rows(of orders: [Order], now: Date) -> [KioskOrderRow] {
        var seen: [Int64: Int] = [:]
        return orders.reversed().map { order in
            let millisecond = Int64((order.placedAt.timeIntervalSince1970 * 1000).rounded(.down))
            let repeated = seen[millisecond, default: 0]
            seen[millisecond] = repeated + 1
            return KioskOrderRow(
                order: order, now: now, key: repeated == 0 ? "\(millisecond)" : "\(millisecond)-\(repeated)")
        }
        .reversed()
    }
}

/// One column of the workshop board.
public struct KioskStageColumn: Hashable, Sendable {
    public var id: String
    public var title: String
    /// The column's oldest orders (those being worked on), at most ``shownCards``.
    public var cards: [KioskBoardCard]
    /// Stored, like every shown value: templates read stored properties only.
    public var count: Int
    /// "and 1,988 more" under the cards when the column holds more than it shows; nil otherwise.
    public var more: String?

    /// Cards a column shows. A screen across the room reads a dozen; a launch day can put
    /// thousands of orders in one stage, and drawing them all would cost every kiosk's patch (and
    /// each order's render) time in proportion to the backlog, for cards nobody can read.
    public static let shownCards = 12

    init(stage: OrderStatus, cards: [KioskBoardCard], count: Int) {
        id = stage.rawValue
        title = stage.label
        self.cards = cards
        self.count = count
        let hidden = count - cards.count
        more = hidden > 0 ? "and \(hidden.groupedDigits) more" : nil
    }

    /// One column per unfinished stage, in the stages' order, from `inProgress` (oldest first):
    /// one pass that counts every order and makes cards of the first ``shownCards`` of each stage
    /// only, since this runs for every order placed or moved, with the whole backlog in hand.
    static func columns(of inProgress: some Collection<Order>) -> [KioskStageColumn] {
        let stages = OrderStatus.allCases.filter { !$0.isFinished }
        var counts = Array(repeating: 0, count: stages.count)
        var cards = Array(repeating: [KioskBoardCard](), count: stages.count)
        for index in inProgress.indices {
            guard let column = stages.firstIndex(of: inProgress[index].status) else { continue }
            counts[column] += 1
            if cards[column].count < shownCards { cards[column].append(KioskBoardCard(order: inProgress[index])) }
        }
        return stages.indices.map { KioskStageColumn(stage: stages[$0], cards: cards[$0], count: counts[$0]) }
    }
}

/// One order on the board.
public struct KioskBoardCard: Hashable, Sendable {
    /// Short enough for a narrow column: "Sky Sharp V · Koa", "+1" for each further guitar.
    public var description: String

    init(order: Order) {
        guard let first = order.lines.first?.guitar else {
            description = "An order"
            return
        }
        let more = order.guitarCount - 1
        description = "\(first.color.name) \(first.shape.name) · \(first.body.name)" + (more > 0 ? " +\(more)" : "")
    }

    /// "Sky Sharp V with Koa body and Ebony fretboard", "2 × …", or "… and 2 more guitars".
    static func summary(of order: Order) -> String {
        guard let first = order.lines.first else { return "An order" }
        let head = first.quantity > 1 ? "\(first.quantity) × \(first.guitar.description)" : first.guitar.description
        let others = order.guitarCount - first.quantity
        switch others {
        case 0: return head
        case 1: return head + " and 1 more guitar"
        default: return head + " and \(others) more guitars"
        }
    }
}
