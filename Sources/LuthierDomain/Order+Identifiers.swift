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
