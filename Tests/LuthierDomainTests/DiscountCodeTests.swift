import Foundation
import Testing

@testable import LuthierDomain

@Suite struct DiscountCodeTests {
    static let expiry = Date(timeIntervalSince1970: 2_000_000_000)

    @Test func takesThePercentageOffRoundedHalfToEven() {
        let tenOff = DiscountCode(code: "BAND10", percent: 10, expires: Self.expiry)
        #expect(tenOff.apply(to: .dollars(4150)) == .dollars(3735))
        // 15% off $0.30 is 25.5 cents → 26 (even); 15% off $0.10 is 8.5 cents → 8 (even).
        let fifteen = DiscountCode(code: "X", percent: 15, expires: Self.expiry)
        #expect(fifteen.apply(to: Money(minorUnits: 30, currency: .usd)).minorUnits == 26)
        #expect(fifteen.apply(to: Money(minorUnits: 10, currency: .usd)).minorUnits == 8)
        #expect(DiscountCode(code: "FREE", percent: 100, expires: Self.expiry).apply(to: .dollars(2000)).isZero)
    }

    @Test func isValidStrictlyBeforeItsExpiry() {
        let code = DiscountCode(code: "BAND10", percent: 10, expires: Self.expiry)
        #expect(code.isValid(at: Self.expiry.addingTimeInterval(-1)))
        #expect(!code.isValid(at: Self.expiry))
        #expect(!code.isValid(at: Self.expiry.addingTimeInterval(1)))
    }

    @Test func percentagesAreKeptInRange() {
        #expect(DiscountCode(code: "A", percent: 150, expires: Self.expiry).percent == 100)
        #expect(DiscountCode(code: "B", percent: -5, expires: Self.expiry).percent == 0)
    }

    @Test func aCodeWithoutExpiryIsAlwaysValid() {
        let code = DiscountCode(code: "WELCOME10", percent: 10)
        #expect(code.expires == nil)
        #expect(code.isValid(at: .distantPast))
        #expect(code.isValid(at: .distantFuture))
    }

    @Test func itsLabelNamesTheCodeAndThePercentage() {
        #expect(DiscountCode(code: "WELCOME10", percent: 10).label == "WELCOME10 (10 % off)")
    }

    // MARK: - Configuration

    /// Midnight UTC starting the day, built without a parser.
    static func utc(_ year: Int, _ month: Int, _ day: Int) throws -> Date {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(secondsFromGMT: 0))
        return try #require(calendar.date(from: DateComponents(year: year, month: month, day: day)))
    }

    @Test func readsACodeThatNeverExpires() throws {
        let code = try DiscountCode(configuration: "WELCOME10=10%")
        #expect(code == DiscountCode(code: "WELCOME10", percent: 10))
        #expect(code.expires == nil)
    }

    @Test func readsACodeWithAnExpiryDay() throws {
        let code = try DiscountCode(configuration: "SPRING15=15%@2027-06-01")
        #expect(code.code == "SPRING15")
        #expect(code.percent == 15)
        #expect(code.expires == (try Self.utc(2027, 6, 1)))
        #expect(code.expires == Date(timeIntervalSince1970: 1_811_808_000))  // 2027-06-01T00:00:00Z
    }

    @Test func expiresAtTheStartOfItsDayInUTC() throws {
        let code = try DiscountCode(configuration: "SPRING15=15%@2027-06-01")
        let midnight = try Self.utc(2027, 6, 1)
        #expect(code.isValid(at: midnight.addingTimeInterval(-1)))  // 31 May, 23:59:59 UTC
        #expect(!code.isValid(at: midnight))
        #expect(!code.isValid(at: midnight.addingTimeInterval(60)))
        // Still 31 May in New York, already 1 June in UTC: the day is UTC's.
        #expect(!code.isValid(at: midnight.addingTimeInterval(3 * 3_600)))
    }

    @Test(arguments: [
        ("a=1%", "a", 1), ("Summer_Sale-2027=100%", "Summer_Sale-2027", 100),
        (String(repeating: "X", count: 32) + "=5%", String(repeating: "X", count: 32), 5),
        ("leap=20%@2028-02-29", "leap", 20),
    ])
    func acceptsEveryWellFormedCode(text: String, code: String, percent: Int) throws {
        let parsed = try DiscountCode(configuration: text)
        #expect(parsed.code == code)
        #expect(parsed.percent == percent)
    }

    @Test(arguments: [
        ("WEL COME=10%", "'WEL COME': a code is 1–32 letters, digits, '-' or '_'."),
        ("CAFÉ=10%", "'CAFÉ': a code is 1–32 letters, digits, '-' or '_'."),
        ("=10%", "'': a code is 1–32 letters, digits, '-' or '_'."),
        ("A.B=10%", "'A.B': a code is 1–32 letters, digits, '-' or '_'."),
        (
            String(repeating: "X", count: 33) + "=10%",
            "'\(String(repeating: "X", count: 33))': a code is 1–32 letters, digits, '-' or '_'."
        ),
    ])
    func refusesACodeWithCharactersItCannotHave(text: String, message: String) {
        #expect(throws: DiscountCode.ConfigurationError(description: message)) {
            try DiscountCode(configuration: text)
        }
    }

    @Test(arguments: ["A=0%", "A=101%", "A=10", "A=%", "A=ten%", "A=-5%", "A=10%%", "A=", "A=10 %"])
    func refusesAPercentageOutOfRangeOrWithoutItsSign(text: String) throws {
        let error = try #require(throws: DiscountCode.ConfigurationError.self) {
            try DiscountCode(configuration: text)
        }
        #expect(error.description.hasPrefix("'\(text)': the percentage must be 1%–100%"))
        #expect(error.description.contains("CODE=PERCENT%"))
    }

    @Test(arguments: [
        "A=10%@2027-02-30", "A=10%@2027-13-01", "A=10%@2027-00-10", "A=10%@2027-6-1", "A=10%@27-06-01",
        "A=10%@2027/06/01", "A=10%@", "A=10%@tomorrow", "A=10%@2027-06-01T00:00", "A=10%@2027-02-29",
    ])
    func refusesAnExpiryThatIsNotADay(text: String) throws {
        let error = try #require(throws: DiscountCode.ConfigurationError.self) {
            try DiscountCode(configuration: text)
        }
        #expect(error.description.hasPrefix("'\(text)': the expiry must be a date YYYY-MM-DD"))
    }

    @Test(arguments: ["WELCOME10", "", "WELCOME10:10%"])
    func refusesTextWithoutAnEqualsSignAndShowsHowToWriteIt(text: String) throws {
        let error = try #require(throws: DiscountCode.ConfigurationError.self) {
            try DiscountCode(configuration: text)
        }
        #expect(
            error.description
                == "'\(text)': write CODE=PERCENT% or CODE=PERCENT%@YYYY-MM-DD, e.g. SPRING15=15%@2027-06-01.")
    }
}
