import LuthierFeatures

/// The parts of the checkout page that change.
enum CheckoutFragments {
    static let parts = "checkout-parts"
    static let lines = "checkout-lines"
    static let details = "checkout-details"
    static let shipping = "checkout-shipping"
    static let currency = "checkout-currency"
    static let totals = "checkout-totals"
    static let order = "checkout-order"

    static let table = FragmentTable<CheckoutOutput>([
        .when(\.isCart, .fragment(lines, "fragments/checkout-lines", shows: \.lines, \.isAvailable, \.availability)),
        .when({ !$0.isCart }, .fragment(parts, "fragments/checkout-parts", shows: \.parts)),
        .fragment(details, "fragments/checkout-details", shows: \.estimate, \.availability, \.isAvailable),
        .fragment(shipping, "fragments/checkout-shipping", shows: \.shippingOptions),
        .fragment(currency, "fragments/checkout-currency", shows: \.currencies),
        .fragment(
            totals, "fragments/checkout-totals", announce: .polite,
            shows: \.basePrice, \.additions, \.discountLabel, \.discount, \.shipping, \.grandTotal, \.ratesNote,
            \.deliveryTime, \.arePricesPending),
        .fragment(
            order, "fragments/checkout-order", announce: .status,
            shows: \.orderButtonLabel, \.isOrderDisabled, \.isOrdering, \.notice, \.confirmation),
    ])
}
