import LuthierDomain
import LuthierFeatures

/// What the order list shows.
struct OrdersPage: Sendable {
    struct Row: Sendable {
        let number: String
        let placedAt: String
        let guitars: Int
        let stage: String
        let total: String
    }

    struct StageOption: Sendable {
        let value: String
        let label: String
        let isSelected: Bool
    }

    let rows: [Row]
    let isEmpty: Bool
    let stages: [StageOption]
    let number: String
    let heading: String

    init(orders: [Order], stage: OrderStatus?, number: String, limit: Int) {
        rows = orders.map { order in
            Row(
                number: order.number, placedAt: CheckoutOutput.format(order.placedAt), guitars: order.guitarCount,
                stage: order.status.label, total: order.quote.total.formatted())
        }
        isEmpty = orders.isEmpty
        stages =
            [StageOption(value: "", label: "Every stage", isSelected: stage == nil)]
            + OrderStatus.allCases.map { StageOption(value: $0.rawValue, label: $0.label, isSelected: $0 == stage) }
        self.number = number
        let count = orders.count == limit ? "The newest \(limit) orders" : "\(orders.count) orders"
        heading = count + (stage.map { " at \($0.label)" } ?? "") + (number.isEmpty ? "" : " matching \(number)")
    }
}
