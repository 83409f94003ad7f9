/// How much of a scarce wood one customer may take, so that one order, or a script placing many,
/// cannot sweep up what is left of a wood and leave every other customer "Currently unavailable".
///
/// A wood is scarce while `scarceAt` pieces or fewer are in stock. An order may take at most
/// `perOrder` pieces of a scarce wood, and one session, or one client address, at most
/// `perCustomer` pieces of it within `window` (the web layer counts those). The owner sells what
/// they choose outside these rules: a restock past `scarceAt` lifts them, and `off` turns them off.
public struct ScarceWoodRule: Hashable, Sendable {
    public var scarceAt: Int
    public var perOrder: Int
    public var perCustomer: Int
    public var window: Duration

    public init(scarceAt: Int, perOrder: Int, perCustomer: Int, window: Duration) {
        self.scarceAt = max(scarceAt, 0)
        self.perOrder = max(perOrder, 1)
        self.perCustomer = max(perCustomer, 1)
        self.window = window
    }

    /// The shop's default: a wood with 12 pieces or fewer is scarce; 2 pieces of it an order, 4 a
    /// customer a day.
    public static let standard = ScarceWoodRule(scarceAt: 12, perOrder: 2, perCustomer: 4, window: .seconds(86_400))
    /// No wood is ever scarce.
    public static let off = ScarceWoodRule(scarceAt: 0, perOrder: .max, perCustomer: .max, window: .seconds(86_400))

    /// Whether any stock makes a wood scarce: not for `off` (`scarceAt` 0), whose orders need
    /// no look at the stock.
    public var canMakeAWoodScarce: Bool { scarceAt > 0 }

    /// The needs of `needs` on woods scarce in `stock` (in stock, but `scarceAt` pieces or fewer).
    public func scarceNeeds(_ needs: [WoodNeed], stock: [StockedWood: Int]) -> [WoodNeed] {
        needs.filter { need in
            let inStock = stock[need.wood] ?? 0
            return inStock > 0 && inStock <= scarceAt
        }
    }

    /// Why one order of `needs` takes too much of a scarce wood, as a sentence naming the wood and
    /// the limit; nil when it may. (An order needing more than is in stock is refused as
    /// unavailable, not here.)
    public func refusal(ordering needs: [WoodNeed], stock: [StockedWood: Int]) -> String? {
        guard let over = scarceNeeds(needs, stock: stock).first(where: { $0.count > perOrder }) else { return nil }
        let inStock = stock[over.wood] ?? 0
        return "An order may take at most \(perOrder) \(over.wood.stockName) while \(scarceAt) or fewer are in stock "
            + "(\(inStock) are); this one takes \(over.count). Please order fewer, or contact the workshop."
    }
}
