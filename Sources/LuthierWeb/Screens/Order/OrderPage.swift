import Foundation
import LuthierDomain
import LuthierFeatures

/// What the order page shows: the guitars, amounts (in the order's currency) and status.
struct OrderPage: Sendable {
    /// One ordered line, priced in the order's currency.
    struct Line: Sendable {
        let description: String
        let quantity: Int
        let unitPrice: String
        let total: String
    }

    let cart: CartOutput?
    let number: String
    let pictures: [Picture]
    let description: String
    /// One guitar: shown part by part; several: as lines.
    let isSingle: Bool
    let parts: [PartRow]
    let lines: [Line]
    let shippingName: String
    let deliveryTime: String
    let basePrice: String
    let additions: String
    let discountCode: String?
    let discount: String
    let shipping: String
    let grandTotal: String
    let currency: String
    let stages: OrderStagesView
    /// The order's own event stream, which moves its stages live.
    let eventsURL: String
    let placedAt: String

    /// - Parameter key: the access key the page was opened with, if any, for its stream too.
    init(order: Order, cart: CartOutput?, key: String?) {
        self.cart = cart
        number = order.number
        pictures = order.lines.map { Picture(image: GuitarArtwork(guitar: $0.guitar).image) }
        let count = order.guitarCount
        isSingle = order.lines.count == 1 && count == 1
        description =
            isSingle ? order.lines.first.map(\.guitar.description) ?? "" : "\(count) guitars"
        let rate = ExchangeRate(currency: order.currency, perDollar: order.rate, asOf: order.placedAt)
        parts =
            isSingle
            ? order.lines.first.map { PartRow.parts(of: $0.guitar) { rate.convert($0).formatted() } } ?? [] : []
        lines = order.lines.map { line in
            Line(
                description: line.guitar.description,
                quantity: line.quantity,
                unitPrice: rate.convert(line.guitar.price).formatted(),
                total: rate.convert(line.guitar.price.times(line.quantity)).formatted()
            )
        }
        shippingName = order.shipping.name
        deliveryTime = order.shipping.deliveryTime
        basePrice = order.quote.basePrice.formatted()
        additions = order.quote.additions.formatted()
        discountCode = order.discountCode
        discount = "−" + order.quote.discount.formatted()
        shipping = order.quote.shipping.formattedOrFree()
        grandTotal = order.quote.total.formatted()
        currency = order.currency.code
        stages = OrderStagesView(order: order)
        eventsURL = "/orders/\(order.number)/events" + (key.map { "?key=\($0)" } ?? "")
        placedAt = CheckoutOutput.format(order.placedAt)
    }
}

/// Where an order is: every stage it goes through, done, current or still to come.
struct OrderStagesView: Sendable, Hashable {
    struct Row: Sendable, Hashable {
        let label: String
        /// `done`, `current` or `upcoming`, as the stylesheet's class.
        let state: String
        let isCurrent: Bool
    }

    let status: String
    let rows: [Row]
    /// What a cancelled order's customer reads instead of the stages.
    let notice: String?

    init(order: Order) {
        status = order.status.label
        guard order.status != .cancelled else {
            rows = []
            notice =
                "The workshop cancelled this order before its woods were cut; nothing will be built. "
                + "Please get in touch if you did not expect this."
            return
        }
        notice = nil
        // A collected pickup has one more step after Ready for pickup.
        let stages = OrderStatus.stages(for: order.shipping) + (order.status == .collected ? [.collected] : [])
        let current = stages.firstIndex(of: order.status) ?? 0
        rows = stages.enumerated().map { index, stage in
            let state = index < current ? "done" : index == current ? "current" : "upcoming"
            return Row(label: stage.label, state: state, isCurrent: index == current)
        }
    }
}

/// A guitar's picture on a page, as its `<img>` (``GuitarArtwork/image``).
struct Picture: Sendable {
    let image: String
}
