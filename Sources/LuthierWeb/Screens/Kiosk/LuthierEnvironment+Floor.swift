import LuthierFeatures

extension LuthierEnvironment {
    /// The environment the sessions run in: ordering also tells `floor` at once, so the kiosk and
    /// the workshop board show a new order without waiting for the stage timer.
    func telling(_ floor: WorkshopFloor) -> LuthierEnvironment {
        var environment = self
        let placeOrder = self.workshop.placeOrder
        environment.workshop.placeOrder = { request in
            let order = try await placeOrder(request)
            floor.orderPlaced(order)
            return order
        }
        return environment
    }
}
