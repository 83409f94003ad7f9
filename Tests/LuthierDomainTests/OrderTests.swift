import Foundation
import Testing

@testable import LuthierDomain

@Suite struct OrderTests {
    static let lines = [
        CartLine(guitar: Guitar(shape: .longV), quantity: 2),
        CartLine(guitar: Guitar(color: .sky, body: .koa, fretboard: .ebony), quantity: 1),
    ]

    static func order(rate text: String, currency: Currency, discount: DiscountCode?) throws -> Order {
        let rate = ExchangeRate(
            currency: currency, perDollar: try #require(Decimal(string: text)),
            asOf: Date(timeIntervalSince1970: 1_800_000_000))
        let request = OrderRequest(
            checkoutID: "checkout-1", lines: lines, shipping: ShippingOption(method: .express, price: .dollars(250)),
            rate: rate, discount: discount, sessionKey: "session")
        return Order(
            number: "LU-7K3M9Q", accessKey: "access", checkoutID: request.checkoutID, lines: request.lines,
            shipping: request.shipping, currency: currency, rate: request.rate.perDollar,
            discountCode: request.discountCode, quote: request.quote, status: .woodSelection,
            placedAt: Date(timeIntervalSince1970: 1_900_000_000.5), sessionKey: request.sessionKey)
    }

    @Test func aPlacedOrderIsTheRequestAtItsFirstStageBegunWhenPlaced() throws {
        let rate = ExchangeRate(
            currency: .eur, perDollar: try #require(Decimal(string: "0.83")), asOf: Date(timeIntervalSince1970: 0))
        let request = OrderRequest(
            checkoutID: "checkout-9", lines: Self.lines, shipping: ShippingOption(method: .pickup, price: .dollars(0)),
            rate: rate, discount: DiscountCode(code: "BAND10", percent: 10), sessionKey: "session-9")
        let placedAt = Date(timeIntervalSince1970: 1_900_000_000.25)
        let order = Order(placing: request, number: "LU-AAAAAA", accessKey: "key", placedAt: placedAt)
        #expect(
            order
                == Order(
                    number: "LU-AAAAAA", accessKey: "key", checkoutID: "checkout-9", lines: Self.lines,
                    shipping: .pickup, currency: .eur, rate: rate.perDollar, discountCode: "BAND10",
                    quote: request.quote, status: .woodSelection, placedAt: placedAt, stageStartedAt: placedAt,
                    sessionKey: "session-9"))
    }

    @Test(arguments: [("0.83", Currency.eur), ("3.25", .ils), ("0.71", .gbp), ("1", .usd)])
    func anOrderReadsBackExactlyAsItWasPlaced(rate: String, currency: Currency) throws {
        for discount in [nil, DiscountCode(code: "BAND10", percent: 10)] {
            let order = try Self.order(rate: rate, currency: currency, discount: discount)
            let decoded = try JSONDecoder().decode(Order.self, from: try JSONEncoder().encode(order))
            #expect(decoded == order)
            #expect(decoded.rate == Decimal(string: rate))
            #expect(decoded.placedAt == order.placedAt)
            #expect(decoded.discountCode == discount?.code)
        }
    }

    @Test func anOrderRequestPricesEveryLineWithTheDiscount() throws {
        let request = OrderRequest(
            checkoutID: "c", lines: Self.lines, shipping: ShippingOption(method: .ground, price: .dollars(100)),
            rate: .dollar(), discount: DiscountCode(code: "BAND10", percent: 10), sessionKey: "s")
        #expect(request.guitarCount == 3)
        #expect(request.discountCode == "BAND10")
        #expect(request.shipping == .ground)
        #expect(request.quote.discount == .dollars(650))
        #expect(request.quote.total == .dollars(5950))
    }

    @Test func theBuildersOrderIsOneGuitarWithoutACode() {
        let guitar = Guitar(shape: .sharpV)
        let request = OrderRequest(
            checkoutID: "c", guitar: guitar, shipping: ShippingOption(method: .pickup, price: .dollars(0)),
            rate: .dollar(), sessionKey: "s")
        #expect(request.lines == [CartLine(guitar: guitar, quantity: 1)])
        #expect(request.discountCode == nil)
        #expect(request.quote.total == .dollars(2100))
        #expect(request.guitarCount == 1)
    }

    @Test func countsEveryGuitarOrdered() throws {
        #expect(try Self.order(rate: "1", currency: .usd, discount: nil).guitarCount == 3)
    }

    @Test func anUnavailableWoodSaysNothingWasOrdered() {
        #expect(
            OrderError.unavailable(missing: ["Koa body blanks", "Ebony fretboards"]).message
                == "Sorry, this order just became unavailable: we are out of Koa body blanks and Ebony fretboards."
                + " Nothing was ordered.")
    }
}
