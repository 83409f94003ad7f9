import Foundation
import LuthierDomain

/// What the workshop floor shows: the latest orders, the orders in progress and the guitars ordered
/// today. `WorkshopFloor` publishes one after every change.
public struct WorkshopFloorOutput: Hashable, Sendable {
    /// The latest orders, newest first, at most `WorkshopFloorState.recentLimit`.
    public var recentOrders: [Order]
    /// Every order not finished yet, oldest first.
    public var inProgress: OrderList
    /// The guitars (line quantities) ordered since midnight UTC.
    public var guitarsOrderedToday: Int
    /// When any of the above last changed (or was last read from the store).
    public var updatedAt: Date

    public init(recentOrders: [Order] = [], inProgress: OrderList = [], guitarsOrderedToday: Int = 0, updatedAt: Date) {
        self.recentOrders = recentOrders
        self.inProgress = inProgress
        self.guitarsOrderedToday = guitarsOrderedToday
        self.updatedAt = updatedAt
    }
}

/// The workshop floor as it accumulates: the `scan` behind `WorkshopFloor`, a pure fold of what the
/// store said (`loaded`), the orders the shop takes (`placed`) and the stages they move through
/// (`advanced`).
///
/// The lists stay sorted (newest first, oldest first), hold each order once (by number), and keep
/// each order's latest stage: a stage change updates an order in both lists, and a finished order
/// leaves `inProgress`. An order seen again (an idempotent repeat of an order) is not a new order.
public struct WorkshopFloorState: Hashable, Sendable {
    /// How many of the latest orders the floor shows.
    public static let recentLimit = 10

    /// When the lists or the count last changed, or were last loaded.
    ///
    /// Declared first, so that comparing two floors (the store does after every event, to leave
    /// out one that changed nothing) compares it first: a change moves it, and the thousands of
    /// orders in progress are then not compared one by one.
    public var updatedAt: Date
    /// The guitars ordered since `today`.
    public var guitarsOrderedToday: Int
    /// Midnight UTC starting the day `guitarsOrderedToday` counts.
    public var today: Date
    /// The latest orders, newest first (by time placed, then number), at most `recentLimit`.
    public var recentOrders: [Order]
    /// Every order not finished yet, oldest first (by time placed, then number).
    public var inProgress: OrderList

    /// An empty floor as of `now`, before anything was loaded.
    public init(now: Date) {
        recentOrders = []
        inProgress = []
        guitarsOrderedToday = 0
        today = Self.startOfUTCDay(containing: now)
        updatedAt = now
    }

    /// Everything that changes the floor, each with the wall-clock time it was seen at.
    public enum Event: Hashable, Sendable {
        /// The floor as the store has it at `at`: its latest orders, every order in progress and
        /// the guitars ordered since midnight UTC of `at`. Replaces everything.
        case loaded(recentOrders: [Order], inProgress: [Order], guitarsOrderedToday: Int, at: Date)
        /// An order the shop just took. Counted once: an order already on the floor changes nothing.
        case placed(Order, at: Date)
        /// Orders that moved to their next stage, as stored now.
        case advanced([Order], at: Date)
        /// An order the shop's admin changed (cancelled, collected), as stored now: updated where
        /// the floor shows it; one it does not show is not shown because of the change.
        case changed(Order, at: Date)
    }

    /// The fold: the floor after `event`.
    public static func reduce(_ state: WorkshopFloorState, _ event: Event) -> WorkshopFloorState {
        var next = state
        next.apply(event)
        return next
    }

    /// The fold's step, made in place: a workshop holds thousands of orders, and an order placed
    /// or moved inserts, replaces or removes one of them, without copying or comparing the rest.
    public mutating func apply(_ event: Event) {
        switch event {
        case .loaded(let recent, let inProgress, let guitarsOrderedToday, let at):
            recentOrders = Array(Self.unique(recent).sorted(by: Self.isNewer).prefix(Self.recentLimit))
            self.inProgress = OrderList(inProgress.filter { !$0.status.isFinished })
            self.guitarsOrderedToday = guitarsOrderedToday
            today = Self.startOfUTCDay(containing: at)
            updatedAt = at
        case .placed(let order, let at):
            let turned = turnDay(at: at)
            let added = !knows(order) && add(order)
            if turned || added { updatedAt = at }
        case .advanced(let orders, let at):
            var changed = turnDay(at: at)
            for order in orders {
                let moved = knows(order) ? update(order) : add(order)
                changed = changed || moved
            }
            if changed { updatedAt = at }
        case .changed(let order, let at):
            let turned = turnDay(at: at)
            let updated = knows(order) && update(order)
            if turned || updated { updatedAt = at }
        }
    }

    /// What the floor publishes.
    public var output: WorkshopFloorOutput {
        WorkshopFloorOutput(
            recentOrders: recentOrders, inProgress: inProgress, guitarsOrderedToday: guitarsOrderedToday,
            updatedAt: updatedAt)
    }

    /// Midnight UTC at the start of the day `date` is in.
    public static func startOfUTCDay(containing date: Date) -> Date {
        let day = (date.timeIntervalSince1970 / 86_400).rounded(.down)
        return Date(timeIntervalSince1970: day * 86_400)
    }

    // MARK: - Steps of the fold

    /// Newest first: later placed, then the greater number (the store's `ORDER BY … DESC`).
    private static func isNewer(_ a: Order, _ b: Order) -> Bool {
        a.placedAt != b.placedAt ? a.placedAt > b.placedAt : a.number > b.number
    }

    /// `orders` with each number once (its first occurrence).
    static func unique(_ orders: some Sequence<Order>) -> [Order] {
        var seen: Set<String> = []
        return orders.filter { seen.insert($0.number).inserted }
    }

    private func knows(_ order: Order) -> Bool {
        recentOrders.contains { $0.number == order.number } || inProgress.position(of: order) != nil
    }

    /// A new day starts counting from zero (orders placed on it are counted as they come); says
    /// whether the count shown changed.
    private mutating func turnDay(at now: Date) -> Bool {
        let day = Self.startOfUTCDay(containing: now)
        guard day > today else { return false }
        today = day
        defer { guitarsOrderedToday = 0 }
        return guitarsOrderedToday != 0
    }

    /// An order the floor did not know: in progress until it is finished, among the latest if it
    /// is one of the `recentLimit` newest, and counted if it is and was placed today.
    ///
    /// An unknown order that does not make the latest is an old one (a repeat of an order placed
    /// before the floor loaded, which the loaded count already has), so it is not counted again.
    ///
    /// Says whether anything shown changed.
    private mutating func add(_ order: Order) -> Bool {
        let inserted = !order.status.isFinished
        if inserted { inProgress.insert(order) }
        var recent = recentOrders + [order]
        recent.sort(by: Self.isNewer)
        guard recent.prefix(Self.recentLimit).contains(where: { $0.number == order.number }) else { return inserted }
        recentOrders = Array(recent.prefix(Self.recentLimit))
        if order.placedAt >= today { guitarsOrderedToday += order.guitarCount }
        return true
    }

    /// An order the floor knows, at its new stage: replaced where it is listed (its place in
    /// either list is by when it was placed, which never changes), and out of `inProgress` once it
    /// is finished. Says whether anything shown changed (an order told again as it is changes
    /// nothing).
    private mutating func update(_ order: Order) -> Bool {
        var changed = false
        if let index = recentOrders.firstIndex(where: { $0.number == order.number }), recentOrders[index] != order {
            recentOrders[index] = order
            changed = true
        }
        guard let position = inProgress.position(of: order) else {
            guard !order.status.isFinished else { return changed }
            inProgress.insert(order)
            return true
        }
        guard inProgress[position] != order else { return changed }
        if order.status.isFinished {
            inProgress.remove(at: position)
        } else {
            inProgress.replace(at: position, with: order)
        }
        return true
    }
}
