import LuthierDomain
import LuthierFeatures

/// What one order's admin page shows.
struct AdminOrderPage: Sendable {
    struct Line: Sendable {
        let description: String
        let quantity: Int
        let total: String
    }

    struct Stage: Sendable {
        let label: String
        let startedAt: String
        let note: String?
    }

    let number: String
    let stage: String
    let placedAt: String
    let shipping: String
    let lines: [Line]
    let currency: String
    let basePrice: String
    let additions: String
    let discountCode: String?
    let discount: String
    let shippingAmount: String
    let total: String
    let history: [Stage]
    let isCancellable: Bool
    let isCollectable: Bool
    let longestNote: Int

    init(order: Order, history: [StageEntry]) {
        number = order.number
        stage = order.status.label
        placedAt = CheckoutOutput.format(order.placedAt)
        shipping = order.shipping.name
        let rate = ExchangeRate(currency: order.currency, perDollar: order.rate, asOf: order.placedAt)
        lines = order.lines.map { line in
            Line(
                description: line.guitar.description, quantity: line.quantity,
                total: rate.convert(line.guitar.price.times(line.quantity)).formatted())
        }
        currency = order.currency.code
        basePrice = order.quote.basePrice.formatted()
        additions = order.quote.additions.formatted()
        discountCode = order.discountCode
        discount = "−" + order.quote.discount.formatted()
        shippingAmount = order.quote.shipping.formattedOrFree()
        total = order.quote.total.formatted()
        self.history = history.map { entry in
            Stage(label: entry.status.label, startedAt: CheckoutOutput.format(entry.startedAt), note: entry.note)
        }
        isCancellable = order.status.isCancellable
        isCollectable = order.status.isCollectable
        longestNote = StockAdjustment.longestNote
    }
}
