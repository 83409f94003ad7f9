import LuthierDomain

/// What the cart page and the cart badge show, derived from the cart by a pure function.
public struct CartOutput: Hashable, Sendable {
    public var lines: [CartLineOutput]
    /// The number of guitars, as the badge shows it.
    public var guitarCount: Int
    /// "1 guitar", "3 guitars", "Empty".
    public var countLabel: String
    public var total: String
    /// The code applied and what it takes off, when a valid code is applied.
    public var discountLabel: String?
    public var discount: String?
    /// The total after the discount, when a valid code is applied.
    public var discountedTotal: String?
    public var discountCode: String?
    public var isEmpty: Bool

    public init(cart: Cart, discount: DiscountCode?) {
        lines = cart.lines.map(CartLineOutput.init)
        guitarCount = cart.guitarCount
        countLabel =
            switch cart.guitarCount {
            case 0: "Empty"
            case 1: "1 guitar"
            default: "\(cart.guitarCount) guitars"
            }
        total = cart.total.formatted()
        // A code stays applied to an emptied cart, but there is nothing to show it on.
        let discount = cart.isEmpty ? nil : discount
        let discounted = discount.map { $0.apply(to: cart.total) }
        discountLabel = discount?.label
        self.discount = discounted.map { "−" + (cart.total - $0).formatted() }
        discountedTotal = discounted?.formatted()
        discountCode = discount?.code
        isEmpty = cart.isEmpty
    }
}

/// One line of the cart as shown.
public struct CartLineOutput: Hashable, Sendable {
    public var id: String
    public var guitar: Guitar
    public var description: String
    public var unitPrice: String
    public var quantity: Int
    public var total: String
    public var isAtMaximum: Bool

    public init(line: CartLine) {
        id = line.id
        guitar = line.guitar
        description = line.guitar.description
        unitPrice = line.unitPrice.formatted()
        quantity = line.quantity
        total = line.total.formatted()
        isAtMaximum = line.quantity >= Cart.maximumQuantity
    }
}
