import LuthierFeatures

extension WorkshopAdminClient {
    /// The admin's workshop as the server runs it: each change, once written, is told to every
    /// screen it concerns, so nobody has to reload.
    /// - a stock change, and a cancellation (its woods are back): every open checkout asks again
    ///   whether its guitars can be built, and every builder marks the woods out of stock;
    /// - a cancellation or a collection: the workshop floor, and through it the kiosk and the
    ///   order's own page;
    /// - a code added or expired: the carts' `DiscountBook`, and every cart that applied it.
    func telling(floor: WorkshopFloor, sessions: SessionRegistry) -> WorkshopAdminClient {
        var client = self
        let adjustStock = adjustStock
        let soldOut = soldOut
        // What every screen learns of a stock change: the woods out of stock after it (a failed
        // read leaves the screens as they were; the change itself is written).
        let tellStock: @Sendable () async -> Void = {
            if let woods = try? await soldOut() { sessions.stockChanged(soldOut: woods) }
        }
        client.adjustStock = { wood, change, note in
            let booked = try await adjustStock(wood, change, note)
            await tellStock()
            return booked
        }
        let cancelOrder = cancelOrder
        client.cancelOrder = { number, note in
            let order = try await cancelOrder(number, note)
            floor.orderChanged(order)
            await tellStock()
            return order
        }
        let markCollected = markCollected
        client.markCollected = { number in
            let order = try await markCollected(number)
            floor.orderChanged(order)
            return order
        }
        let addDiscountCode = addDiscountCode
        client.addDiscountCode = { code in
            let codes = try await addDiscountCode(code)
            sessions.discountsChanged(to: codes)
            return codes
        }
        let expireDiscountCode = expireDiscountCode
        client.expireDiscountCode = { code in
            let codes = try await expireDiscountCode(code)
            sessions.discountsChanged(to: codes)
            return codes
        }
        return client
    }
}
