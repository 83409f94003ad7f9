import Testing

@testable import LuthierDomain

@Suite struct CheckoutTests {
    static let koa = Guitar(body: .koa)
    static let ebony = Guitar(fretboard: .ebony)
    static let limba = Guitar(body: .blackLimba, fretboard: .ebony)

    static func checkout(_ lines: [CheckoutLine]) -> Checkout {
        Checkout(
            id: "c", source: .cart, lines: lines, estimate: BuildEstimate(months: 3),
            shippingOptions: ShippingOption.standard)
    }

    @Test func isAvailableOnlyIfEveryLineIs() {
        let all = Self.checkout([
            CheckoutLine(guitar: Self.koa, quantity: 2, availability: .available),
            CheckoutLine(guitar: Self.ebony, quantity: 1, availability: .available),
        ])
        #expect(all.availability == .available)

        let one = Self.checkout([
            CheckoutLine(guitar: Self.koa, quantity: 2, availability: .available),
            CheckoutLine(guitar: Self.ebony, quantity: 1, availability: .unavailable(missing: ["Ebony fretboards"])),
        ])
        #expect(one.availability == .unavailable(missing: ["Ebony fretboards"]))
    }

    @Test func namesEveryMissingWoodOnceInTheOrderFirstMet() {
        let checkout = Self.checkout([
            CheckoutLine(guitar: Self.koa, quantity: 1, availability: .unavailable(missing: ["Koa body blanks"])),
            CheckoutLine(guitar: .standard, quantity: 1, availability: .available),
            CheckoutLine(
                guitar: Self.ebony, quantity: 3,
                availability: .unavailable(missing: ["Ebony fretboards", "Koa body blanks"])),
            CheckoutLine(
                guitar: Self.limba, quantity: 1,
                availability: .unavailable(missing: ["Black Limba body blanks", "Ebony fretboards"])),
        ])
        #expect(
            checkout.availability
                == .unavailable(missing: ["Koa body blanks", "Ebony fretboards", "Black Limba body blanks"]))
    }

    @Test func aLineThatCannotBeBuiltMakesTheOrderUnavailableEvenIfItNamesNoWood() {
        let checkout = Self.checkout([
            CheckoutLine(guitar: Self.koa, quantity: 1, availability: .available),
            CheckoutLine(guitar: Self.ebony, quantity: 1, availability: .unavailable(missing: [])),
        ])
        #expect(checkout.availability == .unavailable(missing: []))
        #expect(!checkout.availability.isAvailable)
    }

    @Test func anOrderWithNoLinesHasNothingMissing() {
        #expect(Self.checkout([]).availability == .available)
        #expect(Self.checkout([]).guitarCount == 0)
    }

    @Test func itsLinesAreTheCartLinesItWasMadeFromAndCountEveryGuitar() {
        let checkout = Self.checkout([
            CheckoutLine(guitar: Self.koa, quantity: 2, availability: .unavailable(missing: ["Koa body blanks"])),
            CheckoutLine(guitar: Self.ebony, quantity: 3, availability: .available),
        ])
        #expect(
            checkout.cartLines == [CartLine(guitar: Self.koa, quantity: 2), CartLine(guitar: Self.ebony, quantity: 3)])
        #expect(checkout.guitarCount == 5)
        #expect(checkout.discount == nil)
    }
}
