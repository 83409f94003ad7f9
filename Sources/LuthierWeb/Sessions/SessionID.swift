/// A session's identifier: 256 bits from the system's cryptographically secure generator, as 64
/// lowercase hex digits, so that it cannot be guessed and is safe in a cookie as it is.
///
/// It is a secret: whoever holds it holds the session. So it prints redacted (in a log line, an
/// error, a `dump`), and the secret itself is read only through `cookieValue`, by the few places
/// that set the cookie or store it hashed.
public struct SessionID: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// The secret, as the cookie carries it.
    public let cookieValue: String

    /// Accepts only the shape the server issues; anything else is not a session id at all.
    public init?(cookieValue: String) {
        guard cookieValue.utf8.count == 64,
            cookieValue.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) })
        else { return nil }
        self.cookieValue = cookieValue
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
        return SessionID(uncheckedCookieValue: hex)
    }

    private init(uncheckedCookieValue: String) {
        cookieValue = uncheckedCookieValue
    }

    /// Never the secret: one string interpolation must not put it in a log line.
    public var description: String { "SessionID(redacted)" }
    public var debugDescription: String { description }
    /// `dump` and the debugger's views show no field either.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
