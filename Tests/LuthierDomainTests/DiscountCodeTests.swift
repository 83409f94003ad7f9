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
}
