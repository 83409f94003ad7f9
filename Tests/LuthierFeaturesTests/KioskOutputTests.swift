import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

/// What the kiosk shows, mapped from its state: the relative times, the showcase, the latest
/// orders, the board's columns and the counters.
@Suite struct KioskOutputTests {
    let base = WorkshopFloorFixture.base

    /// An order of `lines` placed `secondsAgo` before `base`, at `status`.
    func order(
        _ index: Int, _ lines: [CartLine], shipping: ShippingMethod = .ground, currency: Currency = .usd,
        status: OrderStatus = .woodSelection, secondsAgo: Double = 0
    ) -> Order {
        let rate =
            currency == .usd
            ? ExchangeRate.dollar()
            : ExchangeRate(currency: currency, perDollar: Decimal(string: "0.83") ?? 1, asOf: base)
        let quote = Quote(lines: lines, shipping: ShippingOption(method: shipping, price: shipping.price), rate: rate)
        return Order(
            number: String(format: "LU-K%05d", index), accessKey: "key-\(index)", checkoutID: "checkout-\(index)",
            lines: lines, shipping: shipping, currency: currency, rate: rate.perDollar, quote: quote, status: status,
            placedAt: base.addingTimeInterval(-secondsAgo), sessionKey: "a customer's session")
    }

    func state(
        showcase: KioskState.Showcase = .attract(0), recent: [Order] = [], inProgress: [Order] = [],
        today: Int = 0, counters: KioskCounters = KioskCounters()
    ) -> KioskState {
        var state = KioskState(
            floor: WorkshopFloorOutput(
                recentOrders: recent, inProgress: OrderList(inProgress), guitarsOrderedToday: today, updatedAt: base),
            counters: counters, now: base)
        state.showcase = showcase
        return state
    }

    // MARK: - "ago"

    @Test(arguments: [
        (0.0, "just now"), (0.4, "just now"), (59.0, "just now"), (59.999, "just now"),
        (60.0, "1 min ago"), (119.999, "1 min ago"), (120.0, "2 min ago"), (3_599.0, "59 min ago"),
        (3_600.0, "1 h ago"), (7_199.0, "1 h ago"), (7_200.0, "2 h ago"), (86_399.0, "23 h ago"),
        (86_400.0, "1 d ago"), (172_799.0, "1 d ago"), (172_800.0, "2 d ago"), (30.0 * 86_400, "30 d ago"),
    ])
    func agoBoundaries(seconds: Double, expected: String) {
        #expect(KioskOutput.ago(base, now: base.addingTimeInterval(seconds)) == expected)
    }

    @Test func agoOfAFutureTimeIsJustNow() {
        // A clock a little behind the order's (or an order placed after the last tick) is not "-1 min".
        #expect(KioskOutput.ago(base.addingTimeInterval(1), now: base) == "just now")
        #expect(KioskOutput.ago(base.addingTimeInterval(3_600), now: base) == "just now")
    }

    // MARK: - The showcase

    @Test func aGuitarBeingBuiltIsShownAsSuch() {
        let guitar = Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony)
        let showcase = KioskOutput(state: state(showcase: .building(guitar))).showcase
        #expect(showcase.heading == "Now building")
        #expect(!showcase.isAttract)
        #expect(showcase.description == "Sky Sharp V with Koa body and Ebony fretboard")
        #expect(showcase.price == "$2,450")
        #expect(showcase.artwork == GuitarArtwork(guitar: guitar))
    }

    @Test func theAttractLoopShowsItsGuitarsByIndexWrappingAround() {
        let count = KioskState.attractGuitars.count
        for index in 0..<(count * 2) {
            let guitar = KioskState.attractGuitars[index % count]
            let showcase = KioskOutput(state: state(showcase: .attract(index))).showcase
            #expect(showcase.heading == "From the workshop")
            #expect(showcase.isAttract)
            #expect(showcase.description == guitar.description)
            #expect(showcase.price == guitar.price.formatted())
            #expect(showcase.artwork == GuitarArtwork(guitar: guitar))
        }
    }

    // MARK: - The latest orders

    @Test func theLatestOrdersAreAnonymousRowsWithTheirAmountAgoAndStage() {
        let sky = Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony)
        let recent = [
            order(3, [CartLine(guitar: sky, quantity: 1)], secondsAgo: 10),
            order(2, [CartLine(guitar: sky, quantity: 2)], shipping: .pickup, status: .finishing, secondsAgo: 150),
            order(
                1, [CartLine(guitar: .standard, quantity: 1), CartLine(guitar: sky, quantity: 1)],
                shipping: .express, currency: .eur, status: .shipped, secondsAgo: 2 * 3_600),
            order(
                0, [CartLine(guitar: .standard, quantity: 3), CartLine(guitar: sky, quantity: 2)],
                status: .readyForPickup, secondsAgo: 3 * 86_400),
        ]
        let output = KioskOutput(state: state(recent: recent))
        #expect(
            output.recentOrders.map(\.description) == [
                "Sky Sharp V with Koa body and Ebony fretboard",
                "2 × Sky Sharp V with Koa body and Ebony fretboard",
                "Natural Casual with Mahogany body and Rosewood fretboard and 1 more guitar",
                "3 × Natural Casual with Mahogany body and Rosewood fretboard and 2 more guitars",
            ])
        #expect(output.recentOrders.map(\.amount) == recent.map { $0.quote.total.formatted() })
        #expect(output.recentOrders.map(\.amount).prefix(2) == ["$2,550", "$4,900"])
        #expect(output.recentOrders[2].amount.hasPrefix("€"))
        #expect(output.recentOrders.map(\.ago) == ["just now", "2 min ago", "2 h ago", "3 d ago"])
        #expect(output.recentOrders.map(\.stage) == ["Wood selection", "Finishing", "Shipped", "Ready for pickup"])
        // Nothing that names the customer or opens the order reaches the screen.
        let shown = "\(output.recentOrders)"
        for order in recent {
            #expect(!shown.contains(order.number))
            #expect(!shown.contains(order.accessKey))
            #expect(!shown.contains(order.sessionKey))
        }
    }

    @Test func theRelativeTimesFollowTheStatesNowNotTheOrders() {
        let placed = order(1, [CartLine(guitar: .standard, quantity: 1)])
        var kiosk = state(recent: [placed])
        #expect(KioskOutput(state: kiosk).recentOrders.first?.ago == "just now")
        kiosk = KioskState.reduce(kiosk, .tick(now: base.addingTimeInterval(65), counters: KioskCounters()))
        #expect(KioskOutput(state: kiosk).recentOrders.first?.ago == "1 min ago")
        kiosk = KioskState.reduce(kiosk, .tick(now: base.addingTimeInterval(3_600), counters: KioskCounters()))
        #expect(KioskOutput(state: kiosk).recentOrders.first?.ago == "1 h ago")
    }

    @Test func noOrdersNoRows() {
        let output = KioskOutput(state: state())
        #expect(output.recentOrders.isEmpty)
    }

    // MARK: - The board

    @Test func theBoardHasOneColumnPerUnfinishedStageInOrder() {
        let output = KioskOutput(state: state())
        #expect(output.board.map(\.id) == ["woodSelection", "bodyShaping", "finishing", "setup"])
        #expect(output.board.map(\.title) == ["Wood selection", "Body shaping", "Finishing", "Setup"])
        #expect(output.board.allSatisfy { $0.cards.isEmpty && $0.count == 0 })
    }

    @Test func eachOrderInProgressIsACardInItsStagesColumnOldestFirst() {
        let sky = Guitar(shape: .sharpV, color: .sky, body: .koa, fretboard: .ebony)
        let earth = Guitar(shape: .longV, color: .earth, body: .swampAsh)
        let inProgress = [
            order(1, [CartLine(guitar: sky, quantity: 1)], status: .woodSelection),
            order(2, [CartLine(guitar: earth, quantity: 3)], status: .finishing),
            order(
                3, [CartLine(guitar: .standard, quantity: 1), CartLine(guitar: sky, quantity: 2)],
                status: .woodSelection),
            order(4, [CartLine(guitar: earth, quantity: 1)], status: .setup),
            order(5, [], status: .setup),
        ]
        let output = KioskOutput(state: state(inProgress: inProgress))
        let cards = output.board.map { $0.cards.map(\.description) }
        #expect(
            cards == [
                ["Sky Sharp V · Koa", "Natural Casual · Mahogany +2"],
                [],
                ["Earth Long V · Swamp Ash +2"],
                ["Earth Long V · Swamp Ash", "An order"],
            ])
        #expect(output.board.map(\.count) == [2, 0, 1, 2])
    }

    /// A launch day's backlog: a column shows its oldest dozen and says how many more it holds,
    /// so a kiosk's patch (and each order's render) does not grow with the backlog.
    @Test func aColumnShowsItsOldestDozenAndCountsTheRest() {
        let sky = Guitar(color: .sky)
        let inProgress =
            (1...2_000).map { order($0, [CartLine(guitar: .standard, quantity: 1)], status: .woodSelection) }
            + [order(2_001, [CartLine(guitar: sky, quantity: 1)], status: .woodSelection)]
            + (2_002...2_013).map { order($0, [CartLine(guitar: sky, quantity: 1)], status: .setup) }
        let output = KioskOutput(state: state(inProgress: inProgress))
        let woodSelection = output.board[0]
        #expect(woodSelection.count == 2_001)
        #expect(woodSelection.cards.count == KioskStageColumn.shownCards)
        #expect(woodSelection.cards.allSatisfy { $0.description == "Natural Casual · Mahogany" })
        #expect(woodSelection.more == "and 1,989 more")
        // Exactly a dozen: all shown, nothing more to say.
        #expect(output.board[3].count == 12)
        #expect(output.board[3].cards.count == 12)
        #expect(output.board[3].more == nil)
        #expect(output.board[1].more == nil)
    }

    @Test func finishedOrdersAreNotOnTheBoard() {
        let inProgress = [
            order(1, [CartLine(guitar: .standard, quantity: 1)], status: .shipped),
            order(2, [CartLine(guitar: .standard, quantity: 1)], status: .readyForPickup),
            order(3, [CartLine(guitar: .standard, quantity: 1)], status: .bodyShaping),
        ]
        let output = KioskOutput(state: state(inProgress: inProgress))
        #expect(output.board.map(\.count) == [0, 1, 0, 0])
        #expect(output.board.flatMap(\.cards).count == 1)
    }

    // MARK: - Counters

    @Test func theCountersComeFromTheFloorAndTheSessions() {
        let output = KioskOutput(
            state: state(today: 7, counters: KioskCounters(guitarsInCarts: 4, liveSessions: 9)))
        #expect(output.guitarsOrderedToday == 7)
        #expect(output.guitarsInCarts == 4)
        #expect(output.liveSessions == 9)
    }

    @Test func equalStatesMapToEqualOutputs() {
        // The feed publishes only changes: a tick that changes nothing shown must map equal.
        let placed = order(1, [CartLine(guitar: .standard, quantity: 1)])
        var before = state(showcase: .building(.standard), recent: [placed])
        before.quietTicks = 0
        let after = KioskState.reduce(before, .tick(now: base.addingTimeInterval(5), counters: KioskCounters()))
        #expect(after != before)
        #expect(KioskOutput(state: after) == KioskOutput(state: before))
    }
}
