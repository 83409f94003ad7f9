import Foundation
import LuthierDomain
import LuthierLive

/// Runs `body` with the path of a database file (not created yet) in a fresh temporary
/// directory, and removes the directory afterwards.
func withTemporaryDatabasePath<T>(_ body: (String) async throws -> T) async throws -> T {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("luthier-live-tests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await body(directory.appendingPathComponent("luthier.sqlite").path)
}

/// Orders as the checkout would make them.
enum OrderFixture {
    /// A fixed, whole-millisecond time, so that stored times compare exactly.
    static let placedAt = Date(timeIntervalSince1970: 1_750_000_000.25)

    /// An order of one `guitar`, as the builder places it.
    static func request(
        checkoutID: String = "checkout-1",
        guitar: Guitar = .standard,
        shipping: ShippingMethod = .ground,
        currency: Currency = .usd,
        rate: String = "1",
        sessionKey: String = "session-1"
    ) -> OrderRequest {
        OrderRequest(
            checkoutID: checkoutID,
            guitar: guitar,
            shipping: ShippingOption(method: shipping, price: shipping.price),
            rate: ExchangeRate(currency: currency, perDollar: Decimal(string: rate) ?? 0, asOf: placedAt),
            sessionKey: sessionKey
        )
    }

    /// An order of several lines, with an optional discount, as the cart places it.
    static func request(
        checkoutID: String = "cart-checkout-1",
        lines: [CartLine],
        shipping: ShippingMethod = .ground,
        currency: Currency = .usd,
        rate: String = "1",
        discount: DiscountCode? = nil,
        sessionKey: String = "session-1"
    ) -> OrderRequest {
        OrderRequest(
            checkoutID: checkoutID,
            lines: lines,
            shipping: ShippingOption(method: shipping, price: shipping.price),
            rate: ExchangeRate(currency: currency, perDollar: Decimal(string: rate) ?? 0, asOf: placedAt),
            discount: discount,
            sessionKey: sessionKey
        )
    }
}
