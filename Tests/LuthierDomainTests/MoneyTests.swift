import Foundation
import Testing

@testable import LuthierDomain

@Suite struct MoneyTests {
    @Test func formatsWholeUnitsWithGroupingAndSymbol() {
        #expect(Money.dollars(2000).formatted() == "$2,000")
        #expect(Money.dollars(75).formatted() == "$75")
        #expect(Money.dollars(0).formatted() == "$0")
        #expect(Money.dollars(1_234_567).formatted() == "$1,234,567")
        #expect(Money.dollars(100).formatted() == "$100")
        #expect(Money(minorUnits: -250_000, currency: .usd).formatted() == "-$2,500")
    }

    @Test func convertsWithTheDefaultRatesAsDesignSays() {
        #expect(Money.dollars(2000).converted(to: .eur, rate: Decimal(string: "0.83") ?? 0).formatted() == "€1,660")
        #expect(Money.dollars(2000).converted(to: .gbp, rate: Decimal(string: "0.71") ?? 0).formatted() == "£1,420")
        #expect(Money.dollars(2000).converted(to: .ils, rate: Decimal(string: "3.25") ?? 0).formatted() == "₪6,500")
        let express = Money.dollars(250).converted(to: .ils, rate: Decimal(string: "3.25") ?? 0)
        #expect(express.minorUnits == 81_250)
        #expect(express.formatted() == "₪812")
    }

    @Test(arguments: [
        (81_250, 812), (81_350, 814), (81_249, 812), (81_251, 813), (50, 0), (150, 2), (250, 2), (-150, -2),
        (-81_250, -812), (99, 1), (0, 0),
    ])
    func roundsHalfToEven(minorUnits: Int, whole: Int) {
        #expect(Money(minorUnits: minorUnits, currency: .ils).roundedMajorUnits == whole)
    }

    @Test func conversionRoundsHalfToEvenAtTheMinorUnit() {
        // 1 cent × 0.5 = 0.5 minor units → 0 (even); 3 cents × 0.5 = 1.5 → 2.
        #expect(
            Money(minorUnits: 1, currency: .usd).converted(to: .eur, rate: Decimal(string: "0.5") ?? 0).minorUnits == 0)
        #expect(
            Money(minorUnits: 3, currency: .usd).converted(to: .eur, rate: Decimal(string: "0.5") ?? 0).minorUnits == 2)
    }

    @Test func zeroReadsFreeWhereShippingSaysSo() {
        #expect(Money.zero(.eur).formattedOrFree() == "Free")
        #expect(Money.dollars(100).formattedOrFree() == "$100")
    }

    @Test func currenciesInPickerOrder() {
        #expect(Currency.allCases.map(\.symbol) == ["$", "€", "£", "₪"])
        #expect(Currency.allCases.map(\.code) == ["USD", "EUR", "GBP", "ILS"])
    }
}
