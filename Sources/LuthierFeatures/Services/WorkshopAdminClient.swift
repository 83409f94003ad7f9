import Foundation
import LuthierDomain

/// The workshop as its owner runs it: the wood store, the orders and the discount codes. A struct
/// of closures, like `WorkshopClient`: the live store answers in LuthierLive, the web layer wraps
/// it to tell every open screen of a change (`telling(…)`), and tests pass a double that fails any
/// call they did not expect (`.failing`).
///
/// Every change is judged and written in one transaction, and refused whole with a sentence
/// (`StockRefusal`, `OrderChangeRefusal`, `DiscountCodeRefusal`).
public struct WorkshopAdminClient: Sendable {
    /// Every stock line, in the pickers' order.
    public var stockLevels: @Sendable () async throws -> [StockLevel]
    /// The stock lines with nothing in stock: what the builders mark. Asked after every order, so
    /// it reads the stock alone, never the orders.
    public var soldOut: @Sendable () async throws -> Set<StockedWood>
    /// The woods out of stock as the order numbered so left them, for a workshop that learns them
    /// while placing it (the live store, in the order's own statement); nil asks ``soldOut``.
    /// ``soldOut(afterOrder:)`` is what the checkout calls after an order.
    public var soldOutAfterOrder: (@Sendable (_ number: String) async throws -> Set<StockedWood>)?
    /// What each wood has in stock now: what an order's scarce-wood limits judge. Asked for every
    /// order, so it reads the stock alone, never the orders (``stockLevels`` sums every order's
    /// lines, which grows with the workshop).
    public var inStock: @Sendable () async throws -> [StockedWood: Int]
    /// Books a change of one wood's stock with a note; returns it as booked.
    public var adjustStock:
        @Sendable (_ wood: StockedWood, _ change: Int, _ note: String) async throws -> StockAdjustment
    /// The latest adjustments, newest first.
    public var stockAdjustments: @Sendable (_ limit: Int) async throws -> [StockAdjustment]
    /// Orders newest first, at a stage (or any) whose number contains a text (or any).
    public var orders:
        @Sendable (_ stage: OrderStatus?, _ numberContaining: String?, _ limit: Int) async throws -> [Order]
    /// One order, if there is one.
    public var order: @Sendable (_ number: String) async throws -> Order?
    /// The stages an order reached, first to last.
    public var stageHistory: @Sendable (_ number: String) async throws -> [StageEntry]
    /// Cancels an order at wood selection with a note; its woods go back to stock.
    public var cancelOrder: @Sendable (_ number: String, _ note: String) async throws -> Order
    /// Marks a pickup order ready for pickup as collected.
    public var markCollected: @Sendable (_ number: String) async throws -> Order
    /// Every discount code, oldest first.
    public var discountCodes: @Sendable () async throws -> [DiscountCode]
    /// Adds a code; every code afterwards, oldest first.
    public var addDiscountCode: @Sendable (DiscountCode) async throws -> [DiscountCode]
    /// Ends a code now; every code afterwards, oldest first.
    public var expireDiscountCode: @Sendable (_ code: String) async throws -> [DiscountCode]

    public init(
        stockLevels: @escaping @Sendable () async throws -> [StockLevel],
        soldOut: @escaping @Sendable () async throws -> Set<StockedWood>,
        inStock: @escaping @Sendable () async throws -> [StockedWood: Int],
        adjustStock: @escaping @Sendable (StockedWood, Int, String) async throws -> StockAdjustment,
        stockAdjustments: @escaping @Sendable (Int) async throws -> [StockAdjustment],
        orders: @escaping @Sendable (OrderStatus?, String?, Int) async throws -> [Order],
        order: @escaping @Sendable (String) async throws -> Order?,
        stageHistory: @escaping @Sendable (String) async throws -> [StageEntry],
        cancelOrder: @escaping @Sendable (String, String) async throws -> Order,
        markCollected: @escaping @Sendable (String) async throws -> Order,
        discountCodes: @escaping @Sendable () async throws -> [DiscountCode],
        addDiscountCode: @escaping @Sendable (DiscountCode) async throws -> [DiscountCode],
        expireDiscountCode: @escaping @Sendable (String) async throws -> [DiscountCode]
    ) {
        self.stockLevels = stockLevels
        self.soldOut = soldOut
        self.inStock = inStock
        self.adjustStock = adjustStock
        self.stockAdjustments = stockAdjustments
        self.orders = orders
        self.order = order
        self.stageHistory = stageHistory
        self.cancelOrder = cancelOrder
        self.markCollected = markCollected
        self.discountCodes = discountCodes
        self.addDiscountCode = addDiscountCode
        self.expireDiscountCode = expireDiscountCode
    }

    /// A client whose every call fails with `WorkshopClient.Unimplemented`: a test sets the calls
    /// it expects, and any other call fails it loudly.
    public static var failing: WorkshopAdminClient {
        @Sendable func fail(_ name: String) -> WorkshopClient.Unimplemented { WorkshopClient.Unimplemented(name: name) }
        return WorkshopAdminClient(
            stockLevels: { throw fail("stockLevels") },
            soldOut: { throw fail("soldOut") },
            inStock: { throw fail("inStock") },
            adjustStock: { _, _, _ in throw fail("adjustStock") },
            stockAdjustments: { _ in throw fail("stockAdjustments") },
            orders: { _, _, _ in throw fail("orders") },
            order: { _ in throw fail("order") },
            stageHistory: { _ in throw fail("stageHistory") },
            cancelOrder: { _, _ in throw fail("cancelOrder") },
            markCollected: { _ in throw fail("markCollected") },
            discountCodes: { throw fail("discountCodes") },
            addDiscountCode: { _ in throw fail("addDiscountCode") },
            expireDiscountCode: { _ in throw fail("expireDiscountCode") })
    }
}

extension WorkshopAdminClient {
    /// The woods out of stock after the order numbered `number`: from ``soldOutAfterOrder`` when
    /// the workshop has it, otherwise ``soldOut``.
    public func soldOut(afterOrder number: String) async throws -> Set<StockedWood> {
        if let soldOutAfterOrder { return try await soldOutAfterOrder(number) }
        return try await soldOut()
    }
}
