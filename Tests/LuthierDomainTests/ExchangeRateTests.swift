import Foundation
import Testing

@testable import LuthierDomain

@Suite struct ExchangeRateTests {
    static let asOf = Date(timeIntervalSince1970: 1_800_000_123.25)

    static func rate(_ text: String, _ currency: Currency = .eur) throws -> ExchangeRate {
        ExchangeRate(currency: currency, perDollar: try #require(Decimal(string: text)), asOf: asOf)
    }

    @Test(arguments: ["0.83", "3.25", "0.71", "1", "1234.5678", "0.000001"])
    func aRateReadsBackDigitForDigit(text: String) throws {
        let rate = try Self.rate(text)
        let data = try JSONEncoder().encode(rate)
        let decoded = try JSONDecoder().decode(ExchangeRate.self, from: data)
        #expect(decoded == rate)
        #expect(decoded.perDollar == Decimal(string: text))
        #expect(decoded.asOf == Self.asOf)
        // Stored as text, so that no reader turns it into a binary floating-point number.
        let json = try #require(String(data: data, encoding: .utf8))
        #expect(json.contains("\"perDollar\":\"\(text)\""))
    }

    @Test(arguments: ["0", "-0.83", "abc", "", "0.83.1", "0.83abc", "8.3e-1", " 0.83", "0,83", "."])
    func aStoredRateThatIsNotAPositiveDecimalIsRefused(text: String) {
        let json = #"{"currency":"EUR","perDollar":"\#(text)","asOf":0}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ExchangeRate.self, from: Data(json.utf8)) }
    }

    @Test func aRateStoredAsANumberIsRefused() {
        let json = #"{"currency":"EUR","perDollar":0.83,"asOf":0}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(ExchangeRate.self, from: Data(json.utf8)) }
    }

    @Test func convertsDollarsHalfToEvenAndLeavesDollarsAlone() throws {
        #expect(try Self.rate("3.25", .ils).convert(.dollars(250)) == Money(minorUnits: 81_250, currency: .ils))
        #expect(ExchangeRate.dollar().convert(.dollars(250)) == .dollars(250))
    }
}
