import Foundation
import LuthierDomain
import Testing

@testable import LuthierLive

@Suite struct RatesResponseTests {
    private static func decode(_ json: String) throws(RatesResponse.Failure) -> RatesResponse {
        try RatesResponse.decode(Data(json.utf8))
    }

    @Test func readsEveryShopCurrency() throws {
        let response = try Self.decode(#"{"base":"USD","rates":{"EUR":0.83,"GBP":0.71,"ILS":3.25}}"#)
        #expect(response.perDollar == [.eur: Decimal(string: "0.83"), .gbp: Decimal(string: "0.71"), .ils: 3.25])
        #expect(response.unusable.isEmpty)
        #expect(response.asOf == nil)
    }

    @Test(arguments: ["0.8312", "0.83120000000000000001", "3.2512345678901234567", "1234567.000001", "1e-3"])
    func keepsEveryDigit(text: String) throws {
        let response = try Self.decode(#"{"base":"USD","rates":{"EUR":\#(text)}}"#)
        #expect(response.perDollar[.eur] == Decimal(string: text))
    }

    @Test func ignoresCodesTheShopDoesNotSell() throws {
        let response = try Self.decode(#"{"base":"USD","rates":{"EUR":0.83,"JPY":151.2,"XYZ":"?","USD":7}}"#)
        #expect(response.perDollar == [.eur: Decimal(string: "0.83")])
        #expect(response.perDollar[.usd] == nil)
        #expect(Set(response.unusable.keys) == [.gbp, .ils])
    }

    @Test func aBadRateSpoilsOnlyItsCurrency() throws {
        let response = try Self.decode(
            #"{"base":"USD","rates":{"EUR":0,"GBP":-0.71,"ILS":"3.25"}}"#
        )
        #expect(response.perDollar.isEmpty)
        #expect(response.unusable[.eur]?.contains("not a usable rate") == true)
        #expect(response.unusable[.gbp]?.contains("not a usable rate") == true)
        #expect(response.unusable[.ils]?.contains("not a number") == true)
    }

    @Test func nullAndObjectsAreNotRates() throws {
        let response = try Self.decode(#"{"base":"USD","rates":{"EUR":null,"GBP":{"v":1},"ILS":3.25}}"#)
        #expect(response.perDollar == [.ils: 3.25])
        #expect(Set(response.unusable.keys) == [.eur, .gbp])
    }

    @Test func refusesAnotherBase() {
        #expect(throws: RatesResponse.Failure.wrongBase("EUR")) {
            try Self.decode(#"{"base":"EUR","rates":{"USD":1.2}}"#)
        }
    }

    @Test(arguments: [
        "not json", "", "[]", #"{"rates":{"EUR":0.83}}"#, #"{"base":"USD"}"#, #"{"base":"USD","rates":[1]}"#,
    ])
    func refusesWhatIsNotARatesDocument(body: String) {
        #expect(throws: RatesResponse.Failure.notJSON) { try Self.decode(body) }
    }

    @Test(arguments: [
        (#""date":"2024-05-01""#, 1_714_521_600.0),
        (#""time":"2024-05-01T12:00:00Z""#, 1_714_564_800.0),
        (#""time":"2024-05-01T12:00:00.500Z""#, 1_714_564_800.5),
        (#""time":1714564800"#, 1_714_564_800.0),
    ])
    func readsTheProvidersDate(field: String, seconds: Double) throws {
        let response = try Self.decode(#"{"base":"USD",\#(field),"rates":{"EUR":0.83}}"#)
        #expect(response.asOf == Date(timeIntervalSince1970: seconds))
    }

    @Test func ignoresADateItCannotRead() throws {
        let response = try Self.decode(#"{"base":"USD","date":"yesterday","rates":{"EUR":0.83}}"#)
        #expect(response.asOf == nil)
        #expect(response.perDollar[.eur] == Decimal(string: "0.83"))
    }
}
