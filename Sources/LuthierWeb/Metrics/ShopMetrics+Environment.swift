import CoreMetrics
import Foundation
import LuthierDomain
import LuthierFeatures

extension ShopMetrics {
    /// `environment` with its writes to the store and its exchange-rate requests measured here:
    /// each write's time on the environment's clock and its failures (a refusal the workshop
    /// makes on purpose, such as a wood that ran out, is an answer, not a failure), and each rate
    /// served with how old it is.
    ///
    /// Wrapping the clients, rather than counting inside them, keeps the live implementations to
    /// their I/O and lets every store (SQLite today) be measured the same way.
    func measuring(_ environment: LuthierEnvironment) -> LuthierEnvironment {
        var measured = environment
        let clock = environment.clock
        let placeOrder = environment.workshop.placeOrder
        measured.workshop.placeOrder = { request in
            try await self.write("place-order", on: clock) { try await placeOrder(request) }
        }
        let advanceStages = environment.workshop.advanceStages
        measured.workshop.advanceStages = { now, pace, term in
            try await self.write("advance-stages", on: clock) { try await advanceStages(now, pace, term) }
        }
        let save = environment.sessions.save
        measured.sessions.save = { key, base, snapshot in
            try await self.write("save-session", on: clock) { try await save(key, base, snapshot) }
        }
        let rate = environment.exchangeRates.rate
        measured.exchangeRates.rate = { currency in
            do {
                let served = try await rate(currency)
                self.rateServed(served)
                return served
            } catch {
                self.rateFailed(currency)
                throw error
            }
        }
        return measured
    }

    /// `admin` with its writes measured as `measuring(_:)` measures the environment's.
    func measuring(_ admin: WorkshopAdminClient, on clock: any Clock<Duration>) -> WorkshopAdminClient {
        var measured = admin
        let adjustStock = admin.adjustStock
        measured.adjustStock = { wood, change, note in
            try await self.write("adjust-stock", on: clock) { try await adjustStock(wood, change, note) }
        }
        let cancelOrder = admin.cancelOrder
        measured.cancelOrder = { number, note in
            try await self.write("cancel-order", on: clock) { try await cancelOrder(number, note) }
        }
        let markCollected = admin.markCollected
        measured.markCollected = { number in
            try await self.write("collect-order", on: clock) { try await markCollected(number) }
        }
        return measured
    }

    /// Times one write to the store, and counts it as failed when it threw anything but a
    /// refusal the workshop made on purpose.
    func write<Value>(
        _ operation: String, on clock: any Clock<Duration>, _ body: () async throws -> Value
    ) async throws -> Value {
        let elapsed = stopwatch(on: clock)
        do {
            let value = try await body()
            storeWrite(operation, after: elapsed(), failed: false)
            return value
        } catch {
            storeWrite(operation, after: elapsed(), failed: !Self.isRefusal(error))
            throw error
        }
    }

    /// Whether `error` is the workshop's answer rather than a failure of the store.
    static func isRefusal(_ error: any Error) -> Bool {
        error is OrderError || error is StockRefusal || error is OrderChangeRefusal || error is DiscountCodeRefusal
    }
}
