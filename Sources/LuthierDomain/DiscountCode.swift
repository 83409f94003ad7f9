import Foundation

/// A discount code from the shop's configuration: a percentage off the guitars in a cart (not
/// shipping), until it expires.
public struct DiscountCode: Hashable, Sendable, Codable {
    /// What the customer types; matched without regard to case.
    public var code: String
    /// Whole percent, 0–100.
    public var percent: Int
    /// The first moment the code no longer works; nil for a code that never expires.
    public var expires: Date?

    public init(code: String, percent: Int, expires: Date? = nil) {
        self.code = code
        self.percent = min(max(percent, 0), 100)
        self.expires = expires
    }

    /// Valid strictly before its expiry.
    public func isValid(at now: Date) -> Bool { expires.map { now < $0 } ?? true }

    /// `amount` less the percentage, rounded half-to-even to the minor unit.
    public func apply(to amount: Money) -> Money {
        let kept = Decimal(100 - percent) / 100
        return amount.converted(to: amount.currency, rate: kept)
    }

    /// "10 % off" as the cart and checkout label it.
    public var label: String { "\(code) (\(percent) % off)" }
}

extension DiscountCode {
    /// Why a `--discount` setting was refused, in words an operator can act on.
    public struct ConfigurationError: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
    }

    /// Reads a code as the configuration writes it: `CODE=PERCENT%`, optionally `@YYYY-MM-DD`, the
    /// day (UTC) from which it no longer works: `WELCOME10=10%`, `SPRING15=15%@2027-06-01`.
    ///
    /// Codes are 1–32 letters, digits, `-` or `_`, so that they are easy to type and never need
    /// escaping; percentages are 1–100.
    public init(configuration text: String) throws(ConfigurationError) {
        let usage = "write CODE=PERCENT% or CODE=PERCENT%@YYYY-MM-DD, e.g. SPRING15=15%@2027-06-01"
        let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw ConfigurationError(description: "'\(text)': \(usage).") }
        let code = String(parts[0])
        guard (1...32).contains(code.utf8.count),
            code.utf8.allSatisfy({ byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte) || byte == 45
                    || byte == 95
            })
        else {
            throw ConfigurationError(
                description: "'\(code)': a code is 1–32 letters, digits, '-' or '_'.")
        }
        let terms = parts[1].split(separator: "@", maxSplits: 1, omittingEmptySubsequences: false)
        guard let percentText = terms.first, percentText.hasSuffix("%"),
            percentText.dropLast().allSatisfy(\.isASCIIDigit),
            let percent = Int(percentText.dropLast()), (1...100).contains(percent)
        else {
            throw ConfigurationError(description: "'\(text)': the percentage must be 1%–100%; \(usage).")
        }
        var expires: Date?
        if terms.count == 2 {
            guard let day = Self.utcDay(String(terms[1])) else {
                throw ConfigurationError(description: "'\(text)': the expiry must be a date YYYY-MM-DD; \(usage).")
            }
            expires = day
        }
        self.init(code: code, percent: percent, expires: expires)
    }

    /// Midnight UTC at the start of `text` (YYYY-MM-DD), or nil if it is not such a date.
    private static func utcDay(_ text: String) -> Date? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
            fields.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2])
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        let components = DateComponents(year: year, month: month, day: day)
        guard components.isValidDate(in: calendar), let date = calendar.date(from: components) else { return nil }
        return date
    }
}

extension Character {
    /// 0–9 only: `Int(_:)` alone would also take a sign.
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
