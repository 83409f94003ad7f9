extension CheckoutState: CustomStringConvertible {
    /// The choices and the step, for a tap's one line: "checkout-1: express, EUR (shown EUR), ordered LU-7K3M9Q".
    public var description: String {
        let step =
            if let order { "ordered \(order.number)" } else if isOrdering { "ordering" } else if isLoadingRate {
                "rate loading"
            } else { "open" }
        return "\(checkout.id): \(shipping), \(selectedCurrency) (shown \(shownRate.currency)), \(step)"
    }
}
