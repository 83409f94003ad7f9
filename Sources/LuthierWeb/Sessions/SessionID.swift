/// A session's identifier: 256 bits from the system's cryptographically secure generator, as 64
/// lowercase hex digits, so that it cannot be guessed and is safe in a cookie as it is.
public struct SessionID: Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    /// Accepts only the shape the server issues; anything else is not a session id at all.
    public init?(rawValue: String) {
        guard rawValue.utf8.count == 64,
            rawValue.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        self.rawValue = rawValue
    }

    /// A fresh id. `SystemRandomNumberGenerator` reads the kernel's CSPRNG (getrandom) on Linux.
    public static func random() -> SessionID {
        var generator = SystemRandomNumberGenerator()
        var hex = ""
        hex.reserveCapacity(64)
        for _ in 0..<4 {
            let word = generator.next()
            let digits = String(word, radix: 16)
            hex += String(repeating: "0", count: 16 - digits.count) + digits
        }
        return SessionID(uncheckedRawValue: hex)
    }

    private init(uncheckedRawValue: String) {
        rawValue = uncheckedRawValue
    }

    public var description: String { rawValue }
}
