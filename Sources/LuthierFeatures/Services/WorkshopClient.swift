import LuthierDomain

/// The workshop as the checkout sees it: what it can build, how long it takes, how it ships, and
/// taking orders. A struct of closures so that the live store (LuthierLive), a demo with latency,
/// and a test double that counts or refuses calls are all just different values.
///
/// Every question is asked of a whole order (one line for the builder, every line for the cart),
/// because the answers depend on it together: two lines of the same scarce wood may each be
/// buildable alone and not both.
public struct WorkshopClient: Sendable {
    /// Whether each line can be built, in line order, with the woods the whole order needs.
    public var availability: @Sendable (_ lines: [CartLine]) async throws -> [Availability]
    /// One estimate for the whole order.
    public var estimate: @Sendable (_ lines: [CartLine]) async throws -> BuildEstimate
    public var shippingOptions: @Sendable (_ lines: [CartLine]) async throws -> [ShippingOption]
    /// Writes the order and takes its woods out of stock in one transaction. Idempotent per
    /// `checkoutID`: a repeat returns the order already placed. Throws `OrderError.unavailable`
    /// when a wood ran out.
    public var placeOrder: @Sendable (_ request: OrderRequest) async throws -> Order
    /// The order with that number, if there is one.
    public var order: @Sendable (_ number: String) async throws -> Order?

    public init(
        availability: @escaping @Sendable (_ lines: [CartLine]) async throws -> [Availability],
        estimate: @escaping @Sendable (_ lines: [CartLine]) async throws -> BuildEstimate,
        shippingOptions: @escaping @Sendable (_ lines: [CartLine]) async throws -> [ShippingOption],
        placeOrder: @escaping @Sendable (_ request: OrderRequest) async throws -> Order,
        order: @escaping @Sendable (_ number: String) async throws -> Order?
    ) {
        self.availability = availability
        self.estimate = estimate
        self.shippingOptions = shippingOptions
        self.placeOrder = placeOrder
        self.order = order
    }
}
