import LuthierDomain

/// What the checkout screen remembers.
public struct CheckoutState: Hashable, Sendable {
    public var checkout: Checkout
    /// Availability as last known: ordering can find that a wood ran out meanwhile.
    public var availability: Availability
    public var shipping: ShippingMethod
    /// What the currency picker shows: follows the customer's click at once.
    public var selectedCurrency: Currency
    /// The rate of the currency whose prices are shown. Prices are only ever shown in this one.
    public var shownRate: ExchangeRate
    public var isLoadingRate: Bool
    public var isOrdering: Bool
    public var order: Order?
    /// A message for the customer (a failed rate, a refused order).
    public var notice: String?

    public init(checkout: Checkout) {
        self.checkout = checkout
        availability = checkout.availability
        shipping = checkout.shippingOptions.first?.method ?? .pickup
        selectedCurrency = .usd
        shownRate = .dollar()
        isLoadingRate = false
        isOrdering = false
        order = nil
        notice = nil
    }

    /// A checkout as it was saved: idle, with the customer's choices and its order, if any.
    public init(snapshot: CheckoutSnapshot) {
        self.init(checkout: snapshot.checkout)
        availability = snapshot.availability
        shipping = snapshot.shipping
        selectedCurrency = snapshot.selectedCurrency
        shownRate = snapshot.shownRate
        order = snapshot.order
    }

    /// The picker says one currency while the prices are still in another: show placeholders
    /// rather than figures under the wrong symbol.
    public var arePricesPending: Bool { selectedCurrency != shownRate.currency }

    public var isOrderable: Bool {
        availability.isAvailable && !arePricesPending && !isLoadingRate && !isOrdering && order == nil
    }

    /// The chosen shipping option as the workshop offered it.
    public var shippingOption: ShippingOption {
        checkout.shippingOptions.first { $0.method == shipping }
            ?? ShippingOption(method: shipping, price: shipping.price)
    }
}
