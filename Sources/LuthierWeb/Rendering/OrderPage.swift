import Foundation
import LuthierDomain
import LuthierFeatures

/// What the order page shows: parts, amounts (in the order's currency) and status.
struct OrderPage: Sendable {
    let number: String
    let artwork: GuitarArtwork
    let description: String
    let parts: [PartRow]
    let shippingName: String
    let deliveryTime: String
    let basePrice: String
    let additions: String
    let shipping: String
    let grandTotal: String
    let currency: String
    let status: String
    let placedAt: String

    init(order: Order) {
        number = order.number
        artwork = GuitarArtwork(guitar: order.guitar)
        description = order.guitar.description
        let output = CheckoutOutput(state: CheckoutState(order: order))
        parts = output.parts
        shippingName = order.shipping.name
        deliveryTime = order.shipping.deliveryTime
        basePrice = order.quote.basePrice.formatted()
        additions = order.quote.additions.formatted()
        shipping = order.quote.shipping.formattedOrFree()
        grandTotal = order.quote.total.formatted()
        currency = order.currency.code
        status = order.status.label
        placedAt = CheckoutOutput.format(order.placedAt)
    }
}

extension CheckoutState {
    /// The state an order was placed from, to show its parts priced as they were.
    init(order: Order) {
        self.init(
            checkout: Checkout(
                id: order.checkoutID,
                guitar: order.guitar,
                availability: .available,
                estimate: BuildEstimate(months: 0),
                shippingOptions: ShippingOption.standard
            )
        )
        shipping = order.shipping
        selectedCurrency = order.currency
        shownRate = ExchangeRate(currency: order.currency, perDollar: order.rate, asOf: order.placedAt)
    }
}
