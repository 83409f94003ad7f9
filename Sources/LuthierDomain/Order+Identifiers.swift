import Foundation

extension Order {
    /// Characters of order numbers: no 0/O or 1/I, so a number read over the phone is unambiguous.
    public static let numberAlphabet = Array("23456789ABCDEFGHJKLMNPQRSTUVWXYZ")

    /// A new order number: "LU-" and 6 characters of ``numberAlphabet`` (32⁶ ≈ 1.07 billion
    /// numbers). A store draws again on the rare collision with a number it holds.
    public static func newNumber(using generator: inout some RandomNumberGenerator) -> String {
        "LU-" + String((0..<6).map { _ in numberAlphabet[Int.random(in: 0..<numberAlphabet.count, using: &generator)] })
    }

    /// A new access key: 128 random bits as 32 lowercase hex digits, the secret part of an
    /// order's link (draw it from the system's generator).
    public static func newAccessKey(using generator: inout some RandomNumberGenerator) -> String {
        [generator.next(), generator.next()]
            .map { (word: UInt64) -> String in
                let hex = String(word, radix: 16)
                return String(repeating: "0", count: 16 - hex.count) + hex
            }
            .joined()
    }
}

extension Order {
    /// The order `request` makes, as a store records it: at its first stage (wood selection),
    /// begun when it was placed, in the request's currency at its exact rate. The store draws
    /// `number` (free) and `accessKey` (from the system's generator: a key is a secret) and gives
    /// the time, in the whole milliseconds it stores, so the order returned is the order stored.
    public init(placing request: OrderRequest, number: String, accessKey: String, placedAt: Date) {
        self.init(
            number: number, accessKey: accessKey, checkoutID: request.checkoutID, lines: request.lines,
            shipping: request.shipping, currency: request.rate.currency, rate: request.rate.perDollar,
            discountCode: request.discountCode, quote: request.quote, status: .woodSelection, placedAt: placedAt,
            sessionKey: request.sessionKey)
    }
}
