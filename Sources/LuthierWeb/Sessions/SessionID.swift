/// A session's identifier: 256 bits from the system's cryptographically secure generator, as 64
/// lowercase hex digits, so that it cannot be guessed and is safe in a cookie as it is.
///
/// It is a secret: whoever holds it holds the session. So it prints redacted (in a log line, an
/// error, a `dump`), and the secret itself is read only through `cookieValue`, by the few places
/// that set the cookie or store it hashed.
public struct SessionID: Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    // The id's 256 bits, as four words in the order the cookie spells them: 32 bytes inline,
    // where its 64 hex digits as a string cost each session a 112-byte allocation.
    private let first: UInt64
    private let second: UInt64
    private let third: UInt64
    private let fourth: UInt64

    /// The secret, as the cookie carries it: 64 lowercase hex digits.
    public var cookieValue: String {
        String(unsafeUninitializedCapacity: 64) { digits in
            var index = 0
            for word in [first, second, third, fourth] {
                for shift in stride(from: 60, through: 0, by: -4) {
                    let nibble = UInt8(truncatingIfNeeded: word >> UInt64(shift)) & 0xF
                    digits[index] = nibble < 10 ? 48 + nibble : 87 + nibble
                    index += 1
                }
            }
            return index
        }
    }

    /// Accepts only the shape the server issues; anything else is not a session id at all.
    public init?(cookieValue: String) {
        var words: [UInt64] = []
        words.reserveCapacity(4)
        var word: UInt64 = 0
        var count = 0
        for unit in cookieValue.utf8 {
            let nibble: UInt8
            switch unit {
            case 48...57: nibble = unit - 48
            case 97...102: nibble = unit - 87
            default: return nil
            }
            word = word << 4 | UInt64(nibble)
            count += 1
            if count % 16 == 0 {
                words.append(word)
                word = 0
            }
            guard count <= 64 else { return nil }
        }
        guard count == 64 else { return nil }
        self.init(words[0], words[1], words[2], words[3])
    }

    /// An id of exactly these 32 bytes, in the order the cookie spells them (the issuer's random
    /// half and its signature); nil for any other count.
    init?(secretBytes bytes: [UInt8]) {
        guard bytes.count == 32 else { return nil }
        func word(at start: Int) -> UInt64 { bytes[start..<start + 8].reduce(0) { $0 << 8 | UInt64($1) } }
        self.init(word(at: 0), word(at: 8), word(at: 16), word(at: 24))
    }

    /// The secret as its 32 bytes, in the cookie's order: what the issuer signs and checks,
    /// without spelling the id out in hex and reading it back.
    var secretBytes: [UInt8] {
        [first, second, third, fourth].flatMap { word in
            stride(from: 56, through: 0, by: -8).map { UInt8(truncatingIfNeeded: word >> UInt64($0)) }
        }
    }

    /// A fresh id. `SystemRandomNumberGenerator` reads the kernel's CSPRNG (getrandom) on Linux.
    public static func random() -> SessionID {
        var generator = SystemRandomNumberGenerator()
        return SessionID(generator.next(), generator.next(), generator.next(), generator.next())
    }

    private init(_ first: UInt64, _ second: UInt64, _ third: UInt64, _ fourth: UInt64) {
        self.first = first
        self.second = second
        self.third = third
        self.fourth = fourth
    }

    /// Never the secret: one string interpolation must not put it in a log line.
    public var description: String { "SessionID(redacted)" }
    public var debugDescription: String { description }
    /// `dump` and the debugger's views show no field either.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
