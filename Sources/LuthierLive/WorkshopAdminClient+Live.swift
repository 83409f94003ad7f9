import Foundation
import LuthierDomain
import LuthierFeatures

extension WorkshopAdminClient {
    /// The admin's workshop on the SQLite `store`: each call one read or one write transaction,
    /// none holding a Swift concurrency thread while the writer is busy.
    public static func live(store: WorkshopStore) -> WorkshopAdminClient {
        WorkshopAdminClient(
            stockLevels: { try await store.asyncRead { db in try WorkshopStore.stockLevels(in: db) } },
            soldOut: { try await store.asyncRead { db in try WorkshopStore.soldOut(in: db) } },
            adjustStock: { wood, change, note in
                try await store.asyncWrite { db in try store.adjustStock(of: wood, by: change, note: note, in: db) }
            },
            stockAdjustments: { limit in
                try await store.asyncRead { db in try WorkshopStore.stockAdjustments(limit: limit, in: db) }
            },
            orders: { stage, number, limit in
                try await store.asyncRead { db in
                    try WorkshopStore.orders(stage: stage, numberContaining: number, limit: limit, in: db)
                }
            },
            order: { number in
                try await store.asyncRead { db in try WorkshopStore.fetchOrder(in: db, where: "number", is: number) }
            },
            stageHistory: { number in
                try await store.asyncRead { db in try WorkshopStore.stageHistory(ofOrder: number, in: db) }
            },
            cancelOrder: { number, note in
                try await store.asyncWrite { db in try store.cancelOrder(number: number, note: note, in: db) }
            },
            markCollected: { number in
                try await store.asyncWrite { db in try store.markCollected(number: number, in: db) }
            },
            discountCodes: { try await store.asyncRead { db in try WorkshopStore.discountCodes(in: db) } },
            addDiscountCode: { code in
                try await store.asyncWrite { db in
                    try WorkshopStore.addDiscountCode(code, at: store.now(), in: db)
                    return try WorkshopStore.discountCodes(in: db)
                }
            },
            expireDiscountCode: { code in
                try await store.asyncWrite { db in
                    _ = try WorkshopStore.expireDiscountCode(code, at: store.now(), in: db)
                    return try WorkshopStore.discountCodes(in: db)
                }
            })
    }

    /// The admin's workshop on PostgreSQL: each call one read or one write transaction of `store`.
    public static func live(postgres store: PostgresStore) -> WorkshopAdminClient {
        WorkshopAdminClient(
            stockLevels: { try await store.stockLevels() },
            soldOut: { try await store.soldOut() },
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
    }
}
