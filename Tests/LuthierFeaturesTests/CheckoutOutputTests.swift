import Foundation
import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct CheckoutOutputTests {
    static let longV = Guitar(shape: .longV)  // $2,075
    static let skyKoaEbony = Guitar(color: .sky, body: .koa, fretboard: .ebony)  // $2,350
    static let tenOff = DiscountCode(code: "BAND10", percent: 10)
    static let euro = ExchangeRate(
        currency: .eur, perDollar: Decimal(string: "0.83") ?? 0, asOf: Date(timeIntervalSince1970: 1_800_000_000))

    static func cart(
        koa: Availability = .available, discount: DiscountCode? = tenOff
    ) -> Checkout {
        Checkout(
            id: "cart-1", source: .cart,
            lines: [
                CheckoutLine(guitar: longV, quantity: 2, availability: .available),
                CheckoutLine(guitar: skyKoaEbony, quantity: 1, availability: koa),
            ],
            estimate: BuildEstimate(months: 5), shippingOptions: ShippingOption.standard, discount: discount)
    }

    static func builder(_ guitar: Guitar, availability: Availability = .available) -> Checkout {
        Checkout(
            id: "builder-1", source: .builder,
            lines: [CheckoutLine(guitar: guitar, quantity: 1, availability: availability)],
            estimate: BuildEstimate(months: 3), shippingOptions: ShippingOption.standard)
    }

    // MARK: - A cart

    @Test func aCartShowsItsLinesWithQuantitiesLineTotalsAndTheDiscount() {
        let output = CheckoutOutput(state: CheckoutState(checkout: Self.cart()))
        #expect(output.isCart)
        #expect(output.title == "Your guitars")
        #expect(output.description == "3 guitars")
        #expect(output.parts.isEmpty)
        #expect(output.estimate == "About 5 months")
        #expect(output.lines.map(\.index) == [0, 1])
        #expect(
            output.lines.map(\.description) == [
                "Natural Long V with Mahogany body and Rosewood fretboard",
                "Sky Casual with Koa body and Ebony fretboard",
            ])
        #expect(output.lines.map(\.quantity) == [2, 1])
        #expect(output.lines.map(\.availability) == ["Available", "Available"])
        #expect(output.lines.map(\.isAvailable) == [true, true])
        #expect(output.lines.map(\.missing) == [nil, nil])
        #expect(output.lines.map(\.unitPrice) == ["$2,075", "$2,350"])
        #expect(output.lines.map(\.total) == ["$4,150", "$2,350"])
        #expect(output.basePrice == "$6,000")
        #expect(output.additions == "$500")
        #expect(output.discountLabel == "BAND10 (10 % off)")
        #expect(output.discount == "−$650")
        #expect(output.shipping == "Free")
        #expect(output.grandTotal == "$5,850")
        #expect(output.availability == "Available")
        #expect(output.orderButtonLabel == "Order now")
        #expect(!output.isOrderDisabled)
    }

    @Test func aCartWithoutACodeHasNoDiscountRow() {
        let output = CheckoutOutput(state: CheckoutState(checkout: Self.cart(discount: nil)))
        #expect(output.discountLabel == nil)
        #expect(output.discount == nil)
        #expect(output.grandTotal == "$6,500")
    }

    @Test func aCartWithAnUnavailableLineIsNotAllAvailableAndSaysWhatIsMissing() {
        let checkout = Self.cart(koa: .unavailable(missing: ["Koa body blanks", "Ebony fretboards"]))
        let output = CheckoutOutput(state: CheckoutState(checkout: checkout))
        #expect(output.lines.map(\.isAvailable) == [true, false])
        #expect(output.lines.map(\.availability) == ["Available", "Currently unavailable"])
        #expect(output.lines.map(\.missing) == [nil, "Out of Koa body blanks and Ebony fretboards"])
        #expect(output.availability == "Currently unavailable")
        #expect(!output.isAvailable)
        #expect(output.orderButtonLabel == "Not all available")
        #expect(output.isOrderDisabled)
    }

    @Test func aCartInEurosConvertsEveryLineAndRow() {
        var state = CheckoutState(checkout: Self.cart())
        state.selectedCurrency = .eur
        state.shownRate = Self.euro
        state.shipping = .express
        let output = CheckoutOutput(state: state)
        // €1,722.25 and €3,444.50 (half-to-even: €3,444); €1,950.50 → €1,950.
        #expect(output.lines.map(\.unitPrice) == ["€1,722", "€1,950"])
        #expect(output.lines.map(\.total) == ["€3,444", "€1,950"])
        #expect(output.basePrice == "€4,980")
        #expect(output.additions == "€415")
        #expect(output.discount == "−€540")  // €539.50
        #expect(output.shipping == "€208")  // €207.50
        // €5,395.00 − €539.50 + €207.50 = €5,063.00
        #expect(output.grandTotal == "€5,063")
        #expect(output.ratesNote == "EUR rates as of \(CheckoutOutput.format(Self.euro.asOf))")
    }

    @Test func whileARateLoadsEveryCartPriceIsAPlaceholder() {
        var state = CheckoutState(checkout: Self.cart())
        state.selectedCurrency = .gbp
        let output = CheckoutOutput(state: state)
        #expect(output.arePricesPending)
        #expect(output.lines.map(\.unitPrice) == ["…", "…"])
        #expect(output.lines.map(\.total) == ["…", "…"])
        #expect(output.discountLabel == "BAND10 (10 % off)")
        #expect(output.discount == "…")
        #expect(output.grandTotal == "…")
        #expect(output.isOrderDisabled)
    }

    @Test func anOrderedCartConfirmsEveryGuitar() {
        var state = CheckoutState(checkout: Self.cart())
        let request = OrderRequest(
            checkoutID: "cart-1", lines: state.checkout.cartLines, shipping: state.shippingOption, rate: .dollar(),
            discount: Self.tenOff, sessionKey: "s")
        let order = Order(
            number: "LU-AB12CD", accessKey: "k", checkoutID: "cart-1", lines: request.lines, shipping: request.shipping,
            currency: .usd, rate: 1, discountCode: "BAND10", quote: request.quote, status: .woodSelection,
            placedAt: Date(timeIntervalSince1970: 0), sessionKey: "s")
        state.order = order
        let output = CheckoutOutput(state: state)
        #expect(output.confirmation == OrderConfirmation(order: order))
        #expect(output.confirmation?.number == "LU-AB12CD")
        #expect(output.confirmation?.link == "/orders/LU-AB12CD?key=k")
        #expect(output.confirmation?.total == "$5,850")
        #expect(output.confirmation?.guitarCount == 3)
        #expect(output.orderButtonLabel == "Ordered")
        #expect(output.isOrderDisabled)
    }

    @Test func aCartOfOneGuitarReadsSingular() {
        let checkout = Checkout(
            id: "c", source: .cart, lines: [CheckoutLine(guitar: Self.longV, quantity: 1, availability: .available)],
            estimate: BuildEstimate(months: 1), shippingOptions: ShippingOption.standard)
        let output = CheckoutOutput(state: CheckoutState(checkout: checkout))
        #expect(output.isCart)
        #expect(output.title == "Your guitar")
        #expect(output.description == "1 guitar")
        #expect(output.parts.isEmpty)
        #expect(output.lines.count == 1)
        #expect(output.estimate == "About 1 month")
    }

    // MARK: - The builder

    @Test func theBuildersGuitarShowsItsPartsAsBefore() {
        let output = CheckoutOutput(state: CheckoutState(checkout: Self.builder(Guitar(shape: .longV, color: .sky))))
        #expect(!output.isCart)
        #expect(output.title == "Your guitar")
        #expect(output.description == "Sky Long V with Mahogany body and Rosewood fretboard")
        #expect(output.parts.map(\.title) == ["Shape", "Color", "Body", "Fretboard"])
        #expect(output.parts.map(\.pricedName) == ["Long V (+$75)", "Sky (+$150)", "Mahogany", "Rosewood"])
        #expect(output.lines.map(\.quantity) == [1])
        #expect(output.lines.map(\.total) == ["$2,225"])
        #expect(output.basePrice == "$2,000")
        #expect(output.additions == "$225")
        #expect(output.discountLabel == nil)
        #expect(output.discount == nil)
        #expect(output.grandTotal == "$2,225")
        #expect(output.orderButtonLabel == "Order now")
    }

    @Test func anUnavailableBuilderGuitarIsAnUnavailableModel() {
        let checkout = Self.builder(Self.skyKoaEbony, availability: .unavailable(missing: ["Koa body blanks"]))
        let output = CheckoutOutput(state: CheckoutState(checkout: checkout))
        #expect(output.orderButtonLabel == "Model unavailable")
        #expect(output.availability == "Currently unavailable")
        #expect(output.lines.map(\.missing) == ["Out of Koa body blanks"])
        #expect(output.isOrderDisabled)
    }

    @Test func theBuildersPartsArePlaceholdersWhileARateLoads() {
        var state = CheckoutState(checkout: Self.builder(Guitar(shape: .sharpV)))
        state.selectedCurrency = .ils
        let output = CheckoutOutput(state: state)
        #expect(output.parts.map(\.pricedName) == ["Sharp V (+…)", "Natural", "Mahogany", "Rosewood"])
        #expect(output.discount == nil)
    }

    @Test("dates read the same for every visitor: day, short month, year and 24-hour UTC time")
    func dateFormat() {
        #expect(CheckoutOutput.format(Date(timeIntervalSince1970: 1_800_000_000)) == "15 Jan 2027, 08:00 UTC")
        #expect(CheckoutOutput.format(Date(timeIntervalSince1970: 0)) == "1 Jan 1970, 00:00 UTC")
        #expect(CheckoutOutput.format(Date(timeIntervalSince1970: 1_795_817_159)) == "27 Nov 2026, 22:05 UTC")
    }

}
