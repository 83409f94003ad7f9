import LuthierDomain
import LuthierFeatures

/// What the stock template shows.
struct StockPage: Sendable {
    struct Row: Sendable {
        let id: String
        let anchor: String
        let name: String
        let inStock: Int
        let reserved: Int
        let taken: Int
        let isOut: Bool
    }

    struct Adjustment: Sendable {
        let name: String
        let change: String
        let inStockAfter: Int
        let note: String
        let madeAt: String
    }

    let rows: [Row]
    let adjustments: [Adjustment]
    let hasAdjustments: Bool

    init(levels: [StockLevel], adjustments: [StockAdjustment]) {
        rows = levels.map { level in
            Row(
                id: level.wood.id, anchor: AdminStockController.anchor(level.wood), name: level.wood.stockName,
                inStock: level.inStock, reserved: level.reserved, taken: level.taken, isOut: level.inStock == 0)
        }
        self.adjustments = adjustments.map { adjustment in
            Adjustment(
                name: adjustment.wood.stockName,
                change: adjustment.change > 0 ? "+\(adjustment.change)" : "−\(-adjustment.change)",
                inStockAfter: adjustment.inStockAfter, note: adjustment.note,
                madeAt: CheckoutOutput.format(adjustment.madeAt))
        }
        hasAdjustments = !adjustments.isEmpty
    }
}
