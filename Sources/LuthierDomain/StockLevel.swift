/// One wood as the shop's admin sees it: what is on the shelf, what open orders hold, and what
/// went into finished guitars.
///
/// Stock is taken out of `inStock` when an order is placed (so a customer never orders a blank
/// another customer already has); `reserved` counts those pieces while their orders are still in
/// the workshop, and `taken` once the guitars are finished. A cancelled order's pieces are back in
/// `inStock` and in neither count.
public struct StockLevel: Hashable, Sendable, Codable {
    public var wood: StockedWood
    public var inStock: Int
    public var reserved: Int
    public var taken: Int

    public init(wood: StockedWood, inStock: Int, reserved: Int, taken: Int) {
        self.wood = wood
        self.inStock = inStock
        self.reserved = reserved
        self.taken = taken
    }

    /// Guitars of one stage built from one body and one fretboard wood, as a store adds them up
    /// from its orders' lines.
    public struct GuitarsAtStage: Hashable, Sendable {
        public var status: OrderStatus
        public var body: BodyWood
        public var fretboard: FretboardWood
        public var guitars: Int

        public init(status: OrderStatus, body: BodyWood, fretboard: FretboardWood, guitars: Int) {
            self.status = status
            self.body = body
            self.fretboard = fretboard
            self.guitars = guitars
        }
    }

    /// Every stock line, in the pickers' order (`StockedWood.allCases`): what is on the shelf, and
    /// the guitars of orders in the workshop (reserved) and finished (taken); a cancelled order's
    /// guitars count in neither, its woods being back on the shelf.
    public static func levels(inStock: [StockedWood: Int], guitars: [GuitarsAtStage]) -> [StockLevel] {
        var reserved: [StockedWood: Int] = [:]
        var taken: [StockedWood: Int] = [:]
        for entry in guitars where entry.status != .cancelled {
            for wood in [StockedWood.body(entry.body), .fretboard(entry.fretboard)] {
                if entry.status.isFinished {
                    taken[wood, default: 0] += entry.guitars
                } else {
                    reserved[wood, default: 0] += entry.guitars
                }
            }
        }
        return StockedWood.allCases.map { wood in
            StockLevel(wood: wood, inStock: inStock[wood] ?? 0, reserved: reserved[wood] ?? 0, taken: taken[wood] ?? 0)
        }
    }

    /// The largest and smallest change an adjustment may make at once: a typo ("500" for "5") is
    /// refused rather than booked.
    public static let largestChange = 1_000

    /// The most of one wood the workshop keeps on the shelf.
    public static let mostInStock = 10_000

    /// Why `change` cannot be booked against this level, as the admin is told; nil when it can.
    public func refusal(of change: Int) -> StockRefusal? {
        guard change != 0, abs(change) <= Self.largestChange else {
            return .changeOutOfRange(change)
        }
        guard inStock + change >= 0 else { return .belowZero(wood, inStock: inStock, change: change) }
        guard inStock + change <= Self.mostInStock else { return .aboveMost(wood, inStock: inStock, change: change) }
        return nil
    }
}

/// A stock adjustment the workshop refused, in words the admin can act on. Nothing was changed.
public enum StockRefusal: Error, Hashable, Sendable, CustomStringConvertible {
    case changeOutOfRange(Int)
    case belowZero(StockedWood, inStock: Int, change: Int)
    case aboveMost(StockedWood, inStock: Int, change: Int)

    public var description: String {
        switch self {
        case .changeOutOfRange(let change):
            "change: \(change) is not an adjustment; give a whole number from -\(StockLevel.largestChange) to "
                + "\(StockLevel.largestChange), not 0."
        case .belowZero(let wood, let inStock, let change):
            "change: \(change) would leave \(inStock + change) \(wood.stockName); "
                + "there are \(inStock), so at most \(inStock) can be taken away."
        case .aboveMost(let wood, let inStock, let change):
            "change: \(change) would make \(inStock + change) \(wood.stockName); "
                + "the workshop keeps at most \(StockLevel.mostInStock)."
        }
    }
}
