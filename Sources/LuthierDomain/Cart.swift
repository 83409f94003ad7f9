/// A customer's cart: lines in the order they were first added.
///
/// It changes only through `Cart.reduce`, a pure function of the previous cart and one action, so
/// the cart is the fold (`scan`) of its action history and every rule here is testable alone.
public struct Cart: Hashable, Sendable, Codable {
    /// Handmade guitars: more than this many of one configuration is a workshop conversation,
    /// not a web order.
    public static let maximumQuantity = 10
    /// Different guitars in one cart at most: the cart page and every patch of it stay a few
    /// hundred kilobytes, and nobody orders twenty configurations in one go.
    public static let maximumLines = 20
    /// Guitars in one cart at most, all lines together: a bound on what one session can hold of
    /// the workshop's attention (and on the page), not only per line.
    public static let maximumGuitars = 50

    public private(set) var lines: [CartLine]

    public init(lines: [CartLine] = []) {
        self.lines = lines
    }

    public static let empty = Cart()

    public var isEmpty: Bool { lines.isEmpty }

    /// The number of guitars, as the cart badge shows it.
    public var guitarCount: Int { lines.reduce(0) { $0 + $1.quantity } }

    public var total: Money {
        lines.reduce(Money.zero(.usd)) { $0 + $1.total }
    }

    public func line(id: String) -> CartLine? { lines.first { $0.id == id } }

    /// The next cart, or an error and no change: an unknown line, or a quantity past the maximum.
    public static func reduce(_ cart: Cart, _ action: CartAction) throws(CartError) -> Cart {
        var next = cart
        switch action {
        case .add(let guitar):
            let id = CartLine.id(for: guitar)
            if let index = next.lines.firstIndex(where: { $0.id == id }) {
                try next.raise(at: index)
            } else {
                guard next.lines.count < Self.maximumLines else { throw .lineLimit(maximum: Self.maximumLines) }
                try next.requireRoomForOneMore()
                next.lines.append(CartLine(guitar: guitar, quantity: 1))
            }
        case .increment(let lineID):
            try next.raise(at: next.index(of: lineID))
        case .decrement(let lineID):
            let index = try next.index(of: lineID)
            if next.lines[index].quantity > 1 {
                next.lines[index].quantity -= 1
            } else {
                next.lines.remove(at: index)
            }
        case .remove(let lineID):
            next.lines.remove(at: try next.index(of: lineID))
        case .clear:
            next.lines.removeAll()
        }
        return next
    }

    /// The cart once an order of `ordered` has been placed: each line lowered by what was ordered
    /// of it, and dropped at zero. After ordering the cart as it was checked out, it is empty; a
    /// guitar added in another tab while checking out stays.
    public func removing(ordered: [CartLine]) -> Cart {
        var next = self
        for item in ordered {
            guard let index = next.lines.firstIndex(where: { $0.id == item.id }) else { continue }
            next.lines[index].quantity -= item.quantity
            if next.lines[index].quantity <= 0 { next.lines.remove(at: index) }
        }
        return next
    }

    private func index(of lineID: String) throws(CartError) -> Int {
        guard let index = lines.firstIndex(where: { $0.id == lineID }) else { throw .unknownLine(id: lineID) }
        return index
    }

    private mutating func raise(at index: Int) throws(CartError) {
        guard lines[index].quantity < Self.maximumQuantity else {
            throw .quantityLimit(maximum: Self.maximumQuantity)
        }
        try requireRoomForOneMore()
        lines[index].quantity += 1
    }

    private func requireRoomForOneMore() throws(CartError) {
        guard guitarCount < Self.maximumGuitars else { throw .guitarLimit(maximum: Self.maximumGuitars) }
    }
}
