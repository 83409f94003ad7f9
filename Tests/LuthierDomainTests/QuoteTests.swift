import Foundation
import Testing

@testable import LuthierDomain

@Suite struct QuoteTests {
    static let longV = Guitar(shape: .longV)  // $2,000 + $75
    static let skyKoaEbony = Guitar(color: .sky, body: .koa, fretboard: .ebony)  // $2,000 + $350
    /// Three guitars: $6,000 of base price and $500 of options.
    static let lines = [CartLine(guitar: longV, quantity: 2), CartLine(guitar: skyKoaEbony, quantity: 1)]
    static let ground = ShippingOption(method: .ground, price: .dollars(100))
    static let pickup = ShippingOption(method: .pickup, price: .dollars(0))
    static let tenOff = DiscountCode(code: "BAND10", percent: 10)

    static func rate(_ currency: Currency) -> ExchangeRate {
        ExchangeRate(
            currency: currency, perDollar: ExchangeRate.embeddedPerDollar[currency] ?? 0,
            asOf: Date(timeIntervalSince1970: 0))
    }

    /// Every quote's total is exactly the sum of its rows, in minor units.
    static func expectRowsAddUp(_ quote: Quote, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(
            quote.total.minorUnits
                == quote.basePrice.minorUnits + quote.additions.minorUnits - quote.discount.minorUnits
                + quote.shipping.minorUnits,
            sourceLocation: sourceLocation)
        let currencies = Set(
            [quote.basePrice, quote.additions, quote.discount, quote.shipping, quote.total].map(\.currency))
        #expect(currencies.count == 1, sourceLocation: sourceLocation)
    }

    @Test func severalLinesInDollarsWithoutADiscount() {
        let quote = Quote(lines: Self.lines, shipping: Self.ground, rate: .dollar())
        #expect(quote.basePrice == .dollars(6000))
        #expect(quote.additions == .dollars(500))
        #expect(quote.discount == .zero(.usd))
        #expect(quote.shipping == .dollars(100))
        #expect(quote.total == .dollars(6600))
        Self.expectRowsAddUp(quote)
    }

    @Test func aDiscountComesOffTheGuitarsButNotTheShipping() {
        let quote = Quote(lines: Self.lines, shipping: Self.ground, rate: .dollar(), discount: Self.tenOff)
        #expect(quote.basePrice == .dollars(6000))
        #expect(quote.additions == .dollars(500))
        #expect(quote.discount == .dollars(650))  // 10 % of $6,500; shipping's $100 is not discounted
        #expect(quote.shipping == .dollars(100))
        #expect(quote.total == .dollars(5950))
        Self.expectRowsAddUp(quote)
        // A code of 0 % takes nothing off.
        let none = Quote(
            lines: Self.lines, shipping: Self.ground, rate: .dollar(), discount: DiscountCode(code: "ZERO", percent: 0))
        #expect(none.discount.isZero)
        #expect(none.total == .dollars(6600))
    }

    @Test func severalLinesInEurosAreConvertedOnceRowByRow() {
        let plain = Quote(lines: Self.lines, shipping: Self.ground, rate: Self.rate(.eur))
        #expect(plain.basePrice == Money(minorUnits: 498_000, currency: .eur))  // 6,000 × 0.83
        #expect(plain.additions == Money(minorUnits: 41_500, currency: .eur))  // 500 × 0.83
        #expect(plain.discount == .zero(.eur))
        #expect(plain.shipping == Money(minorUnits: 8_300, currency: .eur))
        #expect(plain.total == Money(minorUnits: 547_800, currency: .eur))
        Self.expectRowsAddUp(plain)

        let discounted = Quote(lines: Self.lines, shipping: Self.ground, rate: Self.rate(.eur), discount: Self.tenOff)
        #expect(discounted.discount == Money(minorUnits: 53_950, currency: .eur))  // 10 % of €5,395.00
        #expect(discounted.total == Money(minorUnits: 493_850, currency: .eur))
        #expect(discounted.total.formatted() == "€4,938")
        Self.expectRowsAddUp(discounted)
    }

    @Test func theDiscountRowRoundsHalfToEvenAtTheMinorUnit() {
        // One Long V in euros is €1,722.25; 10 % of it is €172.225: 17,222.5 cents → 17,222 (even).
        let euros = Quote(
            lines: [CartLine(guitar: Self.longV, quantity: 1)], shipping: Self.pickup, rate: Self.rate(.eur),
            discount: Self.tenOff)
        #expect(euros.basePrice.minorUnits + euros.additions.minorUnits == 172_225)
        #expect(euros.discount == Money(minorUnits: 17_222, currency: .eur))
        #expect(euros.total == Money(minorUnits: 155_003, currency: .eur))
        Self.expectRowsAddUp(euros)

        // In shekels it is ₪6,743.75; 10 % is 67,437.5 agorot → 67,438 (even).
        let shekels = Quote(
            lines: [CartLine(guitar: Self.longV, quantity: 1)], shipping: Self.pickup, rate: Self.rate(.ils),
            discount: Self.tenOff)
        #expect(shekels.basePrice.minorUnits + shekels.additions.minorUnits == 674_375)
        #expect(shekels.discount == Money(minorUnits: 67_438, currency: .ils))
        #expect(shekels.total == Money(minorUnits: 606_937, currency: .ils))
        Self.expectRowsAddUp(shekels)
    }

    @Test(arguments: Currency.allCases)
    func everyRowIsInTheQuotedCurrencyAndAddsUp(currency: Currency) {
        for shipping in ShippingOption.standard {
            for discount in [
                nil, Self.tenOff, DiscountCode(code: "X", percent: 15), DiscountCode(code: "Y", percent: 100),
            ] {
                let quote = Quote(lines: Self.lines, shipping: shipping, rate: Self.rate(currency), discount: discount)
                #expect(quote.total.currency == currency)
                Self.expectRowsAddUp(quote)
            }
        }
        // All off leaves only the shipping to pay.
        let free = Quote(
            lines: Self.lines, shipping: Self.ground, rate: Self.rate(currency),
            discount: DiscountCode(code: "FREE", percent: 100))
        #expect(free.total == free.shipping)
    }

    @Test func aLineOfSeveralCostsAsMuchAsThatManyLinesOfOne() {
        let one = Quote(
            lines: [CartLine(guitar: Self.longV, quantity: 3)], shipping: Self.ground, rate: Self.rate(.ils))
        let split = Quote(
            lines: Array(repeating: CartLine(guitar: Self.longV, quantity: 1), count: 3), shipping: Self.ground,
            rate: Self.rate(.ils))
        #expect(one == split)
        #expect(one.basePrice == Money(minorUnits: 1_950_000, currency: .ils))  // 6,000 × 3.25
    }

    @Test func theBuildersOneGuitarIsALineOfOne() {
        for currency in Currency.allCases {
            let rate = Self.rate(currency)
            #expect(
                Quote(guitar: Self.skyKoaEbony, shipping: Self.ground, rate: rate)
                    == Quote(
                        lines: [CartLine(guitar: Self.skyKoaEbony, quantity: 1)], shipping: Self.ground, rate: rate)
            )
        }
        let quote = Quote(guitar: Self.skyKoaEbony, shipping: Self.ground, rate: .dollar())
        #expect(quote.total == .dollars(2450))
        #expect(quote.discount == .zero(.usd))
    }

    @Test func aStoredQuoteIsKeptAmountByAmount() {
        let stored = Quote(
            basePrice: .dollars(1), additions: .dollars(2), discount: .dollars(3), shipping: .dollars(4),
            total: .dollars(5))
        #expect(
            [stored.basePrice, stored.additions, stored.discount, stored.shipping, stored.total]
                == [.dollars(1), .dollars(2), .dollars(3), .dollars(4), .dollars(5)])
    }
}
