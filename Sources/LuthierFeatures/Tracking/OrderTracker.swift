import AsyncAlgorithms
import LuthierDomain

/// One order's page, followed live: started with the order as read, it publishes the order each
/// time its stage moves, until the order is finished or the tracker is closed (the page went away).
public final class OrderTracker: Sendable {
    private let store: Store<OrderTrackingFeature>

    /// - Parameter floor: the workshop floor's outputs, from the current one on.
    public init(
        order: Order, floor: @escaping @Sendable () -> WorkshopFloorOutputs, workshop: WorkshopClient
    ) {
        store = Store(
            initialState: OrderTrackingFeature.State(order: order),
            reducer: OrderTrackingFeature(floor: floor, workshop: workshop))
        store.send(.start)
    }

    /// The order now.
    public var order: Order { store.state.order }

    /// Reads of the store that failed while following (each one kept the stage shown).
    public var failedReads: Int { store.state.failedReads }

    public typealias Orders = AsyncRemoveDuplicatesSequence<
        AsyncMapSequence<AsyncStream<OrderTrackingFeature.State>, Order>
    >

    /// The order from now on, each time its stage moves (`map`, then `removeDuplicates` by stage).
    public func orders() -> Orders {
        store.states().map(\.order).removeDuplicates { $0.status == $1.status }
    }

    /// Ends the following: the floor subscription and any read in flight are cancelled.
    public func close() {
        store.close()
    }
}
