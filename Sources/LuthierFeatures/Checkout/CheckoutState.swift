import LuthierDomain

/// What the checkout screen remembers.
public struct CheckoutState: Hashable, Sendable, Codable {
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
    /// What the customer is told went wrong, if anything: the newest of a failed rate and a
    /// failed order.
    public var notice: Notice?

    public enum Notice: Hashable, Sendable, Codable {
        /// The rate of the first currency could not be fetched; prices stay in the second.
        case rateUnavailable(Currency, showing: Currency)
        case orderFailed(CheckoutFeature.OrderFailure)

        public var message: String {
            switch self {
            case .rateUnavailable(let wanted, let shown):
                "\(wanted.code) prices are unavailable right now; showing prices in \(shown.code)."
            case .orderFailed(let failure): failure.message
            }
        }
    }

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

    /// Why an order cannot be placed now, as the customer is told; nil when it can (or is placed).
    public var whyNotOrderable: String? {
        guard availability.isAvailable else {
            return checkout.lines.count == 1
                ? "This model is currently unavailable." : "Some guitars in this order are currently unavailable."
        }
        guard !arePricesPending, !isLoadingRate else { return "Prices are still loading; order once they are shown." }
        return nil
    }

    public var isOrderable: Bool {
        availability.isAvailable && !arePricesPending && !isLoadingRate && !isOrdering && order == nil
    }

    /// The chosen shipping option as the workshop offered it.
    public var shippingOption: ShippingOption {
        checkout.shippingOptions.first { $0.method == shipping }
            ?? ShippingOption(method: shipping, price: shipping.price)
    }
}
