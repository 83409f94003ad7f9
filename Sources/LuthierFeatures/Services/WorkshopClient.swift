import LuthierDomain

/// The workshop as the checkout sees it: what it can build, how long it takes, how it ships, and
/// taking orders. A struct of closures so that the live store (LuthierLive), a demo with latency,
/// and a test double that counts or refuses calls are all just different values.
public struct WorkshopClient: Sendable {
    public var availability: @Sendable (_ guitar: Guitar) async throws -> Availability
    public var estimate: @Sendable (_ guitar: Guitar) async throws -> BuildEstimate
    public var shippingOptions: @Sendable (_ guitar: Guitar) async throws -> [ShippingOption]
    /// Writes the order and takes its woods out of stock in one transaction. Idempotent per
    /// `checkoutID`: a repeat returns the order already placed. Throws `OrderError.unavailable`
    /// when a wood ran out.
    public var placeOrder: @Sendable (_ request: OrderRequest) async throws -> Order
    /// The order with that number, if there is one.
    public var order: @Sendable (_ number: String) async throws -> Order?

    public init(
        availability: @escaping @Sendable (_ guitar: Guitar) async throws -> Availability,
        estimate: @escaping @Sendable (_ guitar: Guitar) async throws -> BuildEstimate,
        shippingOptions: @escaping @Sendable (_ guitar: Guitar) async throws -> [ShippingOption],
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
