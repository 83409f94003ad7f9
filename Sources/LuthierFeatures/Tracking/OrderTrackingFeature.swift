import LuthierDomain

/// Following one order through the workshop, for its page: the order as last known, its stage
/// changed by the workshop floor's outputs.
///
/// `start` subscribes to the floor (a `Timer.publish`-driven stream, shared by every screen); each
/// floor output is an action. An order among the floor's lists is read from them; one older than
/// the ten newest leaves both lists when it finishes, so it is read from the store instead, the
/// newest read replacing one still in flight (`flatMapLatest`). A read that fails is an action too
/// (`readFailed`): the stage shown stays, and the next floor change tries again. Once the order is
/// finished the subscription ends.
public struct OrderTrackingFeature: Reducer {
    public struct State: Hashable, Sendable {
        public var order: Order
        /// Reads of the store that failed, for whoever watches (the stage shown stays as it was).
        public var failedReads: Int

        public init(order: Order) {
            self.order = order
            failedReads = 0
        }
    }

    public enum Action: Hashable, Sendable {
        case start
        case floorChanged(WorkshopFloorOutput)
        case orderRead(Order)
        case readFailed
    }

    static let floorID = EffectID("tracking.floor")
    static let readID = EffectID("tracking.read")

    /// The workshop floor's outputs, from the current one on.
    let floor: @Sendable () -> WorkshopFloorOutputs
    let workshop: WorkshopClient

    public init(floor: @escaping @Sendable () -> WorkshopFloorOutputs, workshop: WorkshopClient) {
        self.floor = floor
        self.workshop = workshop
    }

    public func reduce(into state: inout State, action: Action) -> Effect<Action> {
        switch action {
        case .start:
            guard !state.order.status.isFinished else { return .none }
            return .forEach(floor()) { .floorChanged($0) }.cancellable(id: Self.floorID)

        case .floorChanged(let output):
            let number = state.order.number
            // Found in the thousands in progress by when it was placed, not by reading them all.
            if let listed = output.inProgress.position(of: state.order).map({ output.inProgress[$0] })
                ?? output.recentOrders.first(where: { $0.number == number })
            {
                return update(&state, to: listed)
            }
            let workshop = workshop
            return .run { send in
                do {
                    if let read = try await workshop.order(number) { send(.orderRead(read)) }
                } catch {
                    send(.readFailed)
                }
            }
            .cancellable(id: Self.readID)

        case .orderRead(let order):
            return update(&state, to: order)

        case .readFailed:
            state.failedReads += 1
            return .none
        }
    }

    /// Shows `order`'s stage if it moved; a finished order needs the floor no more.
    private func update(_ state: inout State, to order: Order) -> Effect<Action> {
        guard order.status != state.order.status else { return .none }
        state.order = order
        return order.status.isFinished ? .merge(.cancel(id: Self.floorID), .cancel(id: Self.readID)) : .none
    }
}
