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
        recentOrders = state.floor.recentOrders.map { KioskOrderRow(order: $0, now: state.now) }
        board = OrderStatus.allCases.filter { !$0.isFinished }.map { stage in
            KioskStageColumn(
                id: stage.rawValue,
                title: stage.label,
                cards: state.floor.inProgress.filter { $0.status == stage }.map(KioskBoardCard.init)
            )
        }
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
    public var description: String
    public var amount: String
    public var ago: String
    public var stage: String

    init(order: Order, now: Date) {
        description = KioskBoardCard.summary(of: order)
        amount = order.quote.total.formatted()
        ago = KioskOutput.ago(order.placedAt, now: now)
        stage = order.status.label
    }
}

/// One column of the workshop board.
public struct KioskStageColumn: Hashable, Sendable {
    public var id: String
    public var title: String
    public var cards: [KioskBoardCard]
    /// Stored, like every shown value: templates read stored properties only.
    public var count: Int

    init(id: String, title: String, cards: [KioskBoardCard]) {
        self.id = id
        self.title = title
        self.cards = cards
        count = cards.count
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
