import Foundation
import LuthierDomain
import LuthierFeatures
import Testing

@testable import LuthierLive
@testable import SQLMachinery

@Suite struct SessionStoreLiveTests {
    static let start = Date(timeIntervalSince1970: 1_800_000_000)
    static let day: TimeInterval = 24 * 3_600

    /// A store on a clock the test moves, and its live session store.
    static func makeStores(
        path: String = ":memory:", now: MovableNow = MovableNow(SessionStoreLiveTests.start)
    ) throws -> (WorkshopStore, SessionStore) {
        let store = try WorkshopStore(path: path, now: { now() })
        return (store, .live(store: store))
    }

    /// A session with everything a customer can leave in it: a built guitar, a cart with a code,
    /// and a cart checkout in euros that has been ordered.
    static func fullSnapshot(revision: Int = 7) throws -> SessionSnapshot {
        let rate = try #require(Decimal(string: "0.83"))
        let euro = ExchangeRate(currency: .eur, perDollar: rate, asOf: Date(timeIntervalSince1970: 1_800_000_000.5))
        let lines = [
            CartLine(guitar: Guitar(shape: .longV, color: .sky, body: .koa, fretboard: .ebony), quantity: 2),
            CartLine(guitar: .standard, quantity: 1),
        ]
        let discount = DiscountCode(code: "SPRING15", percent: 15, expires: Date(timeIntervalSince1970: 1_900_000_000))
        let checkout = Checkout(
            id: "checkout-42", source: .cart,
            lines: lines.map { CheckoutLine(guitar: $0.guitar, quantity: $0.quantity, availability: .available) },
            estimate: BuildEstimate(months: 3), shippingOptions: ShippingOption.standard, discount: discount)
        var state = CheckoutState(checkout: checkout)
        state.shipping = .express
        state.selectedCurrency = .eur
        state.shownRate = euro
        let request = OrderRequest(
            checkoutID: checkout.id, lines: lines,
            shipping: ShippingOption(method: .express, price: ShippingMethod.express.price), rate: euro,
            discount: discount, sessionKey: "order-key")
        state.order = Order(
            number: "LU-ABCDEF", accessKey: "0123456789abcdef0123456789abcdef", checkoutID: checkout.id,
            lines: lines, shipping: .express, currency: .eur, rate: rate, discountCode: "SPRING15",
            quote: request.quote, status: .woodSelection, placedAt: Date(timeIntervalSince1970: 1_800_000_001.25),
            sessionKey: "order-key")
        let cart = try Cart.reduce(Cart.reduce(.empty, .add(Guitar(body: .swampAsh))), .add(Guitar(body: .swampAsh)))
        return SessionSnapshot(
            orderKey: "order-key", analyticsKey: "analytics-key",
            guitar: Guitar(shape: .sharpV, color: .earth, body: .blackLimba, fretboard: .birdseyeMaple),
            cart: cart, discount: discount, checkout: CheckoutSnapshot(state: state),
            settledCheckoutID: "checkout-41", revision: revision)
    }

    @Test func aSessionReadsBackExactlyAsSaved() async throws {
        try await withTemporaryDatabasePath { path in
            let snapshot = try Self.fullSnapshot()
            do {
                let (_, sessions) = try Self.makeStores(path: path)
                #expect(try await sessions.save("key-1", 0, snapshot) == .saved)
                #expect(try await sessions.load("key-1")?.snapshot == snapshot)
            }
            // After a "restart": a fresh store on the same file.
            let (_, sessions) = try Self.makeStores(path: path)
            let loaded = try #require(try await sessions.load("key-1")?.snapshot)
            #expect(loaded == snapshot)
            #expect(loaded.checkout?.order?.rate.description == "0.83")
            #expect(loaded.checkout?.shownRate.perDollar.description == "0.83")
            #expect(loaded.checkout?.order?.quote == snapshot.checkout?.order?.quote)
            #expect(loaded.cart.guitarCount == 2)
        }
    }

    @Test func anUnknownKeyIsNilAndCreatesNothing() async throws {
        let (store, sessions) = try Self.makeStores()
        #expect(try await sessions.load("nobody") == nil)
        #expect(try store.sqlite.rowCount(in: "sessions") == 0)
    }

    @Test func loadingMarksASessionUsedSoItOutlivesUnusedOnes() async throws {
        let now = MovableNow(Self.start)
        let (store, sessions) = try Self.makeStores(now: now)
        let snapshot = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1)
        for key in ["kept", "dropped", "also-dropped"] { #expect(try await sessions.save(key, 0, snapshot) == .saved) }

        now.value = Self.start.addingTimeInterval(10 * Self.day)
        #expect(try await sessions.load("kept")?.snapshot == snapshot)
        // Nothing was used before the start.
        #expect(try await sessions.deleteUnused(Self.start, .distantPast) == 0)
        #expect(try store.sqlite.rowCount(in: "sessions") == 3)
        // Two were last used at the start, one was loaded ten days later.
        #expect(try await sessions.deleteUnused(Self.start.addingTimeInterval(Self.day), .distantPast) == 2)
        #expect(try await sessions.load("dropped") == nil)
        #expect(try await sessions.load("kept")?.snapshot == snapshot)
        #expect(try store.sqlite.rowCount(in: "sessions") == 1)
        // Saving marks it used too.
        now.value = Self.start.addingTimeInterval(20 * Self.day)
        #expect(try await sessions.save("kept", 1, snapshot) == .saved)
        #expect(try await sessions.deleteUnused(Self.start.addingTimeInterval(15 * Self.day), .distantPast) == 0)
        #expect(try await sessions.deleteUnused(Self.start.addingTimeInterval(21 * Self.day), .distantPast) == 1)
    }

    @Test func anonymousLeftoversGoAfterADayWhatIsWorthKeepingStays() async throws {
        let now = MovableNow(Self.start)
        let (store, sessions) = try Self.makeStores(now: now)
        let leftover = SessionSnapshot(orderKey: "o", analyticsKey: "a", guitar: Guitar(color: .sky), revision: 1)
        let withCart = SessionSnapshot(
            orderKey: "o", analyticsKey: "a", cart: Cart(lines: [CartLine(guitar: .standard, quantity: 1)]),
            revision: 1)
        #expect(!leftover.isWorthKeeping)
        #expect(withCart.isWorthKeeping)
        #expect(try await sessions.save("leftover", 0, leftover) == .saved)
        #expect(try await sessions.save("cart", 0, withCart) == .saved)
        now.value = Self.start.addingTimeInterval(2 * Self.day)
        let monthAgo = now.value.addingTimeInterval(-30 * Self.day)
        let dayAgo = now.value.addingTimeInterval(-Self.day)
        #expect(try await sessions.deleteUnused(monthAgo, dayAgo) == 1)
        #expect(try await sessions.load("leftover") == nil)
        #expect(try await sessions.load("cart")?.snapshot == withCart)
        // A leftover that becomes worth keeping is kept from then on.
        #expect(try await sessions.save("grown", 0, leftover) == .saved)
        var grown = withCart
        grown.revision = 2
        #expect(try await sessions.save("grown", 1, grown) == .saved)
        now.value = now.value.addingTimeInterval(3 * Self.day)
        #expect(try await sessions.deleteUnused(monthAgo, now.value.addingTimeInterval(-Self.day)) == 0)
        #expect(try store.sqlite.rowCount(in: "sessions") == 2)
    }

    @Test func aDeletedSessionIsGone() async throws {
        let (store, sessions) = try Self.makeStores()
        let snapshot = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1)
        #expect(try await sessions.save("old-id", 0, snapshot) == .saved)
        #expect(try await sessions.save("other", 0, snapshot) == .saved)
        try await sessions.delete("old-id")
        #expect(try await sessions.load("old-id") == .replaced)
        // A save of the old id still in flight changes nothing: it stays gone.
        #expect(try await sessions.save("old-id", 1, snapshot) == .conflict)
        #expect(try await sessions.load("old-id") == .replaced)
        #expect(try await sessions.load("other")?.snapshot == snapshot)
        // The tombstone expires with the leftovers; the other (worth keeping or not) is kept by
        // the full retention.
        #expect(try store.sqlite.rowCount(in: "sessions") == 2)
        #expect(try await sessions.deleteUnused(.distantPast, .distantFuture) == 2)
    }

    @Test(arguments: ["not json", "{\"format\":1}", "", "[]"])
    func anUnreadableSessionIsDeletedAndReadsAsNone(stored: String) async throws {
        let (store, sessions) = try Self.makeStores()
        let text = stored.replacingOccurrences(of: "'", with: "''")
        try store.sqlite.execute(
            sql:
                "INSERT INTO sessions (key, revision, snapshot, created_at, used_at) VALUES ('bad', 1, '\(text)', 0, 0)"
        )
        #expect(try await sessions.load("bad") == nil)
        #expect(try store.sqlite.rowCount(in: "sessions") == 0)
        // The customer starts afresh under the same key.
        let fresh = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 1)
        #expect(try await sessions.save("bad", 0, fresh) == .saved)
        #expect(try await sessions.load("bad")?.snapshot == fresh)
    }

    @Test func aSessionOfAnotherFormatIsDeletedAndReadsAsNone() async throws {
        let (store, sessions) = try Self.makeStores()
        var future = SessionSnapshot(orderKey: "o", analyticsKey: "a", revision: 5)
        future.format = SessionSnapshot.currentFormat + 1
        #expect(try await sessions.save("future", 0, future) == .saved)
        #expect(try store.sqlite.rowCount(in: "sessions") == 1)
        #expect(try await sessions.load("future") == nil)
        #expect(try store.sqlite.rowCount(in: "sessions") == 0)
    }
}
