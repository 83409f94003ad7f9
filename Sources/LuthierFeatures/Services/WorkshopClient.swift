import Foundation
import LuthierDomain

/// The workshop as the checkout sees it: what it can build, how long it takes, how it ships, and
/// taking orders. A struct of closures so that the live store (LuthierLive), a demo with latency,
/// and a test double that counts or refuses calls are all just different values.
///
/// Every question is asked of a whole order (one line for the builder, every line for the cart),
/// because the answers depend on it together: two lines of the same scarce wood may each be
/// buildable alone and not both.
public struct WorkshopClient: Sendable {
    /// Whether each line can be built, in line order, with the woods the whole order needs.
    public var availability: @Sendable (_ lines: [CartLine]) async throws -> [Availability]
    /// One estimate for the whole order.
    public var estimate: @Sendable (_ lines: [CartLine]) async throws -> BuildEstimate
    public var shippingOptions: @Sendable (_ lines: [CartLine]) async throws -> [ShippingOption]
    /// The three answers above in one call, for a workshop that finds them together (the live
    /// store reads the stock and the backlog once for both); nil asks the three at once.
    /// ``answers(for:)`` is what a checkout calls.
    public var answersTogether: (@Sendable (_ lines: [CartLine]) async throws -> WorkshopAnswers)?
    /// Writes the order and takes its woods out of stock in one transaction. Idempotent per
    /// `checkoutID`: a repeat returns the order already placed. Throws `OrderError.unavailable`
    /// when a wood ran out.
    public var placeOrder: @Sendable (_ request: OrderRequest) async throws -> Order
    /// The order with that number, if there is one.
    public var order: @Sendable (_ number: String) async throws -> Order?
    /// Moves every unfinished order whose stage has lasted `pace` by `now` on by exactly one stage,
    /// its new stage starting one pace after the old one did (not at `now`: no drift, and an order
    /// several paces behind moves one stage per call, never skipping one). Returns the orders
    /// that moved, as stored. With a `term` that has ended (another instance has taken the lead
    /// since; see ``FloorTerm``), moves nothing, and throws when something was due.
    public var advanceStages: @Sendable (_ now: Date, _ pace: WorkshopPace, _ term: FloorTerm?) async throws -> [Order]
    /// When the next stage change is due at `pace` (possibly already past), or nil when no order
    /// is in progress.
    public var nextStageChange: @Sendable (_ pace: WorkshopPace) async throws -> Date?
    /// The latest `limit` orders, newest first.
    public var recentOrders: @Sendable (_ limit: Int) async throws -> [Order]
    /// Every order not finished yet, oldest first.
    public var ordersInProgress: @Sendable () async throws -> [Order]
    /// How many guitars were ordered since `since` (every line's quantity).
    public var guitarsOrdered: @Sendable (_ since: Date) async throws -> Int
    /// What other instances of the shop do to orders, as they do it, for as long as the reader
    /// reads: the workshop floor follows it so that every kiosk shows every order. One process
    /// on its own SQLite file has no others: the stream ends at once.
    public var changesElsewhere: @Sendable () -> AsyncStream<WorkshopChange>

    public init(
        availability: @escaping @Sendable (_ lines: [CartLine]) async throws -> [Availability],
        estimate: @escaping @Sendable (_ lines: [CartLine]) async throws -> BuildEstimate,
        shippingOptions: @escaping @Sendable (_ lines: [CartLine]) async throws -> [ShippingOption],
        placeOrder: @escaping @Sendable (_ request: OrderRequest) async throws -> Order,
        order: @escaping @Sendable (_ number: String) async throws -> Order?,
        advanceStages:
            @escaping @Sendable (_ now: Date, _ pace: WorkshopPace, _ term: FloorTerm?) async throws -> [Order] = {
                _, _, _ in
                throw Unimplemented(name: "advanceStages")
            },
        nextStageChange: @escaping @Sendable (_ pace: WorkshopPace) async throws -> Date? = { _ in
            throw Unimplemented(name: "nextStageChange")
        },
        recentOrders: @escaping @Sendable (_ limit: Int) async throws -> [Order] = { _ in
            throw Unimplemented(name: "recentOrders")
        },
        ordersInProgress: @escaping @Sendable () async throws -> [Order] = {
            throw Unimplemented(name: "ordersInProgress")
        },
        guitarsOrdered: @escaping @Sendable (_ since: Date) async throws -> Int = { _ in
            throw Unimplemented(name: "guitarsOrdered")
        },
        changesElsewhere: @escaping @Sendable () -> AsyncStream<WorkshopChange> = { AsyncStream { $0.finish() } }
    ) {
        self.availability = availability
        self.estimate = estimate
        self.shippingOptions = shippingOptions
        self.placeOrder = placeOrder
        self.order = order
        self.advanceStages = advanceStages
        self.nextStageChange = nextStageChange
        self.recentOrders = recentOrders
        self.ordersInProgress = ordersInProgress
        self.guitarsOrdered = guitarsOrdered
        self.changesElsewhere = changesElsewhere
    }

    /// What a workshop call nobody provided throws: a client built without the workshop floor's
    /// calls (most test doubles) fails them loudly instead of answering something made up.
    public struct Unimplemented: Error, Hashable, Sendable, CustomStringConvertible {
        public var name: String

        public init(name: String) {
            self.name = name
        }

        public var description: String { "The workshop client has no \(name) call" }
    }
}

/// What a checkout asks the workshop about its lines, answered together.
public struct WorkshopAnswers: Sendable, Equatable {
    public var availability: [Availability]
    public var estimate: BuildEstimate
    public var shippingOptions: [ShippingOption]

    public init(availability: [Availability], estimate: BuildEstimate, shippingOptions: [ShippingOption]) {
        self.availability = availability
        self.estimate = estimate
        self.shippingOptions = shippingOptions
    }
}

extension WorkshopClient {
    /// Whether each line can be built, one estimate, and the shipping options for `lines`: from
    /// ``answersTogether`` when the workshop has it, otherwise the three calls made at once.
    public func answers(for lines: [CartLine]) async throws -> WorkshopAnswers {
        if let answersTogether { return try await answersTogether(lines) }
        async let availability = availability(lines)
        async let estimate = estimate(lines)
        async let shippingOptions = shippingOptions(lines)
        return try await WorkshopAnswers(
            availability: availability, estimate: estimate, shippingOptions: shippingOptions)
    }
}

extension WorkshopClient {
    /// A workshop whose every call throws `Unimplemented` and is told to `report` first: a test
    /// sets the calls it expects, and reports any other as a failure (`Issue.record`), so that a
    /// call whose error the caller catches still fails it.
    public static func failing(reporting report: @escaping UnexpectedCallReport = { _ in }) -> WorkshopClient {
        WorkshopClient(
            availability: { _ in throw unexpected("WorkshopClient.availability", report) },
            estimate: { _ in throw unexpected("WorkshopClient.estimate", report) },
            shippingOptions: { _ in throw unexpected("WorkshopClient.shippingOptions", report) },
            placeOrder: { _ in throw unexpected("WorkshopClient.placeOrder", report) },
            order: { _ in throw unexpected("WorkshopClient.order", report) }
        )
    }
}

/// Where a failing double tells of a call nobody expected (a test records an issue); the call
/// throws `WorkshopClient.Unimplemented` whatever it does.
public typealias UnexpectedCallReport = @Sendable (_ call: String) -> Void

/// Tells `report` of the call `name` and returns the error a failing double throws.
func unexpected(_ name: String, _ report: UnexpectedCallReport) -> WorkshopClient.Unimplemented {
    report(name)
    return WorkshopClient.Unimplemented(name: name)
}
