import LuthierDomain
import Testing

@testable import LuthierFeatures

@Suite struct CartOutputTests {
    static let longV = Guitar(shape: .longV)  // $2,075
    static let sky = Guitar(color: .sky)  // $2,150

    @Test func anEmptyCartSaysSo() {
        let output = CartOutput(cart: .empty, discount: nil)
        #expect(output.isEmpty)
        #expect(output.countLabel == "Empty")
        #expect(output.guitarCount == 0)
        #expect(output.total == "$0")
        #expect(output.lines.isEmpty)
    }

    @Test func countsGuitarsNotLines() {
        let one = CartOutput(cart: Cart(lines: [CartLine(guitar: Self.longV, quantity: 1)]), discount: nil)
        #expect(one.countLabel == "1 guitar")
        let three = CartOutput(
            cart: Cart(lines: [CartLine(guitar: Self.longV, quantity: 2), CartLine(guitar: Self.sky, quantity: 1)]),
            discount: nil)
        #expect(three.countLabel == "3 guitars")
        #expect(three.lines.map(\.guitar) == [Self.longV, Self.sky])
        #expect(three.lines.map(\.isAtMaximum) == [false, false])
        #expect(three.discountLabel == nil)
        #expect(three.discount == nil)
        #expect(three.discountedTotal == nil)
    }

    @Test func aCodeShowsItsLabelWhatItTakesOffAndWhatIsLeft() {
        let cart = Cart(lines: [CartLine(guitar: Self.longV, quantity: 2), CartLine(guitar: Self.sky, quantity: 1)])
        let output = CartOutput(cart: cart, discount: DiscountCode(code: "BAND10", percent: 10))
        #expect(output.total == "$6,300")
        #expect(output.discountLabel == "BAND10 (10 % off)")
        #expect(output.discount == "−$630")
        #expect(output.discountedTotal == "$5,670")
        #expect(output.discountCode == "BAND10")
    }

    @Test func aLineAtTheLimitSaysSo() {
        let output = CartOutput(
            cart: Cart(lines: [CartLine(guitar: Self.longV, quantity: Cart.maximumQuantity)]), discount: nil)
        #expect(output.lines.map(\.isAtMaximum) == [true])
        #expect(output.lines.map(\.total) == ["$20,750"])
    }
}
