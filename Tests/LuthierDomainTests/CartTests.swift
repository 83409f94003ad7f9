import Testing

@testable import LuthierDomain

@Suite struct CartTests {
    static let longV = Guitar(shape: .longV)  // $2,075
    static let sky = Guitar(color: .sky)  // $2,150

    static func cart(_ lines: (Guitar, Int)...) -> Cart {
        Cart(lines: lines.map { CartLine(guitar: $0.0, quantity: $0.1) })
    }

    @Test func theEmptyCartHasNothing() {
        #expect(Cart.empty.isEmpty)
        #expect(Cart.empty.guitarCount == 0)
        #expect(Cart.empty.total == .dollars(0))
    }

    @Test func addingToAnEmptyCartMakesOneLineOfOne() throws {
        let cart = try Cart.reduce(.empty, .add(Self.longV))
        #expect(cart.lines == [CartLine(guitar: Self.longV, quantity: 1)])
        #expect(cart.guitarCount == 1)
        #expect(cart.total == .dollars(2075))
    }

    @Test func theSameConfigurationAddedTwiceIsQuantityTwoNotTwoLines() throws {
        let cart = try [CartAction.add(Self.longV), .add(Self.sky), .add(Self.longV)].reduce(Cart.empty) {
            try Cart.reduce($0, $1)
        }
        #expect(cart.lines.map(\.id) == ["longV-natural-mahogany-rosewood", "casual-sky-mahogany-rosewood"])
        #expect(cart.lines.map(\.quantity) == [2, 1])
        #expect(cart.guitarCount == 3)
        #expect(cart.total == .dollars(2075 * 2 + 2150))
        #expect(cart.line(id: CartLine.id(for: Self.longV))?.total == .dollars(4150))
    }

    @Test func incrementAndDecrementMoveOneLineOnly() throws {
        let start = Self.cart((Self.longV, 2), (Self.sky, 1))
        let longV = CartLine.id(for: Self.longV)
        let up = try Cart.reduce(start, .increment(lineID: longV))
        #expect(up.lines.map(\.quantity) == [3, 1])
        let down = try Cart.reduce(start, .decrement(lineID: longV))
        #expect(down.lines.map(\.quantity) == [1, 1])
    }

    @Test func decrementingALineOfOneRemovesIt() throws {
        let start = Self.cart((Self.longV, 2), (Self.sky, 1))
        let cart = try Cart.reduce(start, .decrement(lineID: CartLine.id(for: Self.sky)))
        #expect(cart.lines == [CartLine(guitar: Self.longV, quantity: 2)])
    }

    @Test func removeTakesTheWholeLineAndClearEmptiesTheCart() throws {
        let start = Self.cart((Self.longV, 3), (Self.sky, 1))
        #expect(try Cart.reduce(start, .remove(lineID: CartLine.id(for: Self.longV))).lines.map(\.guitar) == [Self.sky])
        #expect(try Cart.reduce(start, .clear) == .empty)
        #expect(try Cart.reduce(.empty, .clear) == .empty)
    }

    @Test(arguments: [
        CartAction.increment(lineID: "nope"), .decrement(lineID: "nope"), .remove(lineID: "nope"),
        .increment(lineID: ""), .remove(lineID: "casual-natural-mahogany-rosewood"),
    ])
    func actionsOnALineThatIsNotThereAreRefused(action: CartAction) {
        for start in [Cart.empty, Self.cart((Self.longV, 1))] {
            #expect(throws: CartError.self) { try Cart.reduce(start, action) }
        }
    }

    @Test func aLineStopsAtTheMaximumQuantity() throws {
        var cart = Cart.empty
        for _ in 0..<Cart.maximumQuantity { cart = try Cart.reduce(cart, .add(Self.longV)) }
        #expect(cart.guitarCount == Cart.maximumQuantity)
        #expect(throws: CartError.quantityLimit(maximum: 10)) { try Cart.reduce(cart, .add(Self.longV)) }
        #expect(throws: CartError.quantityLimit(maximum: 10)) {
            try Cart.reduce(cart, .increment(lineID: CartLine.id(for: Self.longV)))
        }
        // Other configurations are still welcome.
        #expect(try Cart.reduce(cart, .add(Self.sky)).guitarCount == 11)
    }

    @Test func everyConfigurationHasItsOwnStableLine() {
        let ids = Guitar.allConfigurations.map(CartLine.id(for:))
        #expect(Set(ids).count == 256)
        #expect(CartLine.id(for: .standard) == "casual-natural-mahogany-rosewood")
    }

    @Test func errorsSayWhatWentWrong() {
        #expect(CartError.unknownLine(id: "x").message == "There is no line 'x' in the cart.")
        #expect(CartError.quantityLimit(maximum: 10).message.contains("at most 10"))
        #expect(CartAction.add(.standard).name == "add")
        #expect(CartAction.clear.name == "clear")
    }
}
