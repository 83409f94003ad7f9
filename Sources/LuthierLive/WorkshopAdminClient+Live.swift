import LuthierDomain
import LuthierFeatures

extension WorkshopAdminClient {
    /// The admin's workshop on `store`: each call one read or one write transaction.
    public static func live(store: WorkshopStore) -> WorkshopAdminClient {
        var client = WorkshopAdminClient(
            stockLevels: { try await store.stockLevels() },
            soldOut: { try await store.soldOut() },
            inStock: { try await store.inStock() },
            adjustStock: { wood, change, note in try await store.adjustStock(of: wood, by: change, note: note) },
            stockAdjustments: { limit in try await store.stockAdjustments(limit: limit) },
            orders: { stage, number, limit in
                try await store.orders(stage: stage, numberContaining: number, limit: limit)
            },
            order: { number in try await store.order(number: number) },
            stageHistory: { number in try await store.stageHistory(ofOrder: number) },
            cancelOrder: { number, note in try await store.cancelOrder(number: number, note: note) },
            markCollected: { number in try await store.markCollected(number: number) },
            discountCodes: { try await store.discountCodes() },
            addDiscountCode: { code in try await store.addDiscountCode(code) },
            expireDiscountCode: { code in try await store.expireDiscountCode(code) })
        client.soldOutAfterOrder = { number in try await store.soldOut(afterOrder: number) }
        return client
    }
}
