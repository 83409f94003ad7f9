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
        let rate = ExchangeRate(currency: order.currency, perDollar: order.rate, asOf: order.placedAt)
        parts = PartRow.parts(of: order.guitar) { rate.convert($0).formatted() }
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
