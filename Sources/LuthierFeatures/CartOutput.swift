import LuthierDomain

/// What the cart page and the cart badge show, derived from the cart by a pure function.
public struct CartOutput: Hashable, Sendable {
    public var lines: [CartLineOutput]
    public var guitarCount: Int
    public var total: String
    /// The total after the discount, when a valid code is applied.
    public var discountedTotal: String?
    public var discountCode: String?
    public var isEmpty: Bool

    public init(cart: Cart, discount: DiscountCode?) {
        lines = cart.lines.map(CartLineOutput.init)
        guitarCount = cart.guitarCount
        total = cart.total.formatted()
        discountedTotal = discount.map { $0.apply(to: cart.total).formatted() }
        discountCode = discount?.code
        isEmpty = cart.isEmpty
    }
}

/// One line of the cart as shown.
public struct CartLineOutput: Hashable, Sendable {
    public var id: String
    public var description: String
    public var unitPrice: String
    public var quantity: Int
    public var total: String
    public var isAtMaximum: Bool

    public init(line: CartLine) {
        id = line.id
        description = line.guitar.description
        unitPrice = line.unitPrice.formatted()
        quantity = line.quantity
        total = line.total.formatted()
        isAtMaximum = line.quantity >= Cart.maximumQuantity
    }
}
