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

    @Test func aCartHoldsAtMostTwentyLines() throws {
        var cart = Cart.empty
        let guitars = Array(Guitar.allConfigurations.prefix(Cart.maximumLines + 1))
        for guitar in guitars.dropLast() { cart = try Cart.reduce(cart, .add(guitar)) }
        #expect(cart.lines.count == Cart.maximumLines)
        #expect(throws: CartError.lineLimit(maximum: 20)) { try Cart.reduce(cart, .add(guitars[Cart.maximumLines])) }
        // One more of a guitar already in it is still a line it has.
        #expect(try Cart.reduce(cart, .add(guitars[0])).lines.count == Cart.maximumLines)
        // Removing a line makes room again.
        let fewer = try Cart.reduce(cart, .remove(lineID: CartLine.id(for: guitars[0])))
        #expect(try Cart.reduce(fewer, .add(guitars[Cart.maximumLines])).lines.count == Cart.maximumLines)
    }

    @Test func aCartHoldsAtMostFiftyGuitars() throws {
        var cart = Cart.empty
        // Five lines of ten: fifty guitars.
        for guitar in Guitar.allConfigurations.prefix(5) {
            for _ in 0..<Cart.maximumQuantity { cart = try Cart.reduce(cart, .add(guitar)) }
        }
        #expect(cart.guitarCount == Cart.maximumGuitars)
        let sixth = Guitar.allConfigurations[5]
        #expect(throws: CartError.guitarLimit(maximum: 50)) { try Cart.reduce(cart, .add(sixth)) }
        let lowered = try Cart.reduce(cart, .decrement(lineID: cart.lines[0].id))
        #expect(throws: CartError.guitarLimit(maximum: 50)) {
            try Cart.reduce(Cart.reduce(lowered, .add(sixth)), .increment(lineID: CartLine.id(for: sixth)))
        }
        #expect(try Cart.reduce(lowered, .add(sixth)).guitarCount == Cart.maximumGuitars)
    }

    @Test func everyConfigurationHasItsOwnStableLine() {
        let ids = Guitar.allConfigurations.map(CartLine.id(for:))
        #expect(Set(ids).count == 256)
        #expect(CartLine.id(for: .standard) == "casual-natural-mahogany-rosewood")
    }

    // MARK: - Every action on an empty and a non-empty cart

    static let koa = Guitar(body: .koa)  // $2,100, not in `full`
    /// Three lines, in the order they were added.
    static let full = cart((longV, 2), (sky, 1), (.standard, 10))

    /// Each action with the cart it makes from `full`, or the error that leaves `full` as it was.
    static let onAFullCart: [(CartAction, Result<Cart, CartError>)] = [
        (.add(koa), .success(cart((longV, 2), (sky, 1), (.standard, 10), (koa, 1)))),
        (.add(sky), .success(cart((longV, 2), (sky, 2), (.standard, 10)))),
        (.add(.standard), .failure(.quantityLimit(maximum: 10))),
        (.increment(lineID: CartLine.id(for: longV)), .success(cart((longV, 3), (sky, 1), (.standard, 10)))),
        (.increment(lineID: CartLine.id(for: .standard)), .failure(.quantityLimit(maximum: 10))),
        (.increment(lineID: CartLine.id(for: koa)), .failure(.unknownLine(id: CartLine.id(for: koa)))),
        (.decrement(lineID: CartLine.id(for: longV)), .success(cart((longV, 1), (sky, 1), (.standard, 10)))),
        (.decrement(lineID: CartLine.id(for: sky)), .success(cart((longV, 2), (.standard, 10)))),
        (.decrement(lineID: CartLine.id(for: .standard)), .success(cart((longV, 2), (sky, 1), (.standard, 9)))),
        (.decrement(lineID: CartLine.id(for: koa)), .failure(.unknownLine(id: CartLine.id(for: koa)))),
        (.remove(lineID: CartLine.id(for: longV)), .success(cart((sky, 1), (.standard, 10)))),
        (.remove(lineID: CartLine.id(for: .standard)), .success(cart((longV, 2), (sky, 1)))),
        (.remove(lineID: CartLine.id(for: koa)), .failure(.unknownLine(id: CartLine.id(for: koa)))),
        (
            .remove(lineID: "LONGV-NATURAL-MAHOGANY-ROSEWOOD"),
            .failure(.unknownLine(id: "LONGV-NATURAL-MAHOGANY-ROSEWOOD"))
        ),
        (.clear, .success(.empty)),
    ]

    @Test func everyActionOnANonEmptyCart() {
        for (action, expected) in Self.onAFullCart {
            let result = Result { () throws(CartError) in try Cart.reduce(Self.full, action) }
            #expect(result == expected, "\(action)")
        }
    }

    @Test func everyActionOnTheEmptyCart() {
        let id = CartLine.id(for: Self.longV)
        let expectations: [(CartAction, Result<Cart, CartError>)] = [
            (.add(Self.longV), .success(Self.cart((Self.longV, 1)))),
            (.increment(lineID: id), .failure(.unknownLine(id: id))),
            (.decrement(lineID: id), .failure(.unknownLine(id: id))),
            (.remove(lineID: id), .failure(.unknownLine(id: id))),
            (.clear, .success(.empty)),
        ]
        for (action, expected) in expectations {
            let result = Result { () throws(CartError) in try Cart.reduce(.empty, action) }
            #expect(result == expected, "\(action)")
        }
    }

    @Test func everyConfigurationCanBeAddedToEveryKindOfCart() throws {
        var refused: [String] = []
        for guitar in Guitar.allConfigurations {
            let id = CartLine.id(for: guitar)
            let before = Self.full.line(id: id)?.quantity ?? 0
            guard before < Cart.maximumQuantity else {
                #expect(throws: CartError.quantityLimit(maximum: 10)) { try Cart.reduce(Self.full, .add(guitar)) }
                refused.append(id)
                continue
            }
            let added = try Cart.reduce(Self.full, .add(guitar))
            #expect(added.line(id: id)?.quantity == before + 1)
            #expect(added.guitarCount == Self.full.guitarCount + 1)
            #expect(added.total == Self.full.total + guitar.price)
            // Lines keep the order they were first added in; a new one goes last.
            #expect(added.lines.map(\.id).prefix(Self.full.lines.count) == Self.full.lines.map(\.id)[...])
            #expect(try Cart.reduce(added, .decrement(lineID: id)) == Self.full)
        }
        #expect(refused == [CartLine.id(for: .standard)])
    }

    @Test func theLimitIsTenOfOneConfigurationAndFreesUpWhenLowered() throws {
        let id = CartLine.id(for: Self.longV)
        let nine = Self.cart((Self.longV, 9))
        let ten = try Cart.reduce(nine, .increment(lineID: id))
        #expect(ten.line(id: id)?.quantity == 10)
        #expect(try Cart.reduce(nine, .add(Self.longV)) == ten)
        #expect(throws: CartError.quantityLimit(maximum: Cart.maximumQuantity)) {
            try Cart.reduce(ten, .add(Self.longV))
        }
        let lowered = try Cart.reduce(ten, .decrement(lineID: id))
        #expect(lowered == nine)
        #expect(try Cart.reduce(lowered, .add(Self.longV)) == ten)
    }

    @Test func foldingAnActionHistoryIsTheScanOfReduce() throws {
        let sky = CartLine.id(for: Self.sky)
        let actions: [CartAction] = [
            .add(Self.sky), .add(Self.longV), .increment(lineID: sky), .remove(lineID: "nope"), .decrement(lineID: sky),
            .decrement(lineID: sky), .clear, .add(Self.koa),
        ]
        // A refused action is skipped, as the view model does: the cart stays what it was.
        let counts = actions.reduce(into: [Cart.empty]) { carts, action in
            let previous = carts[carts.count - 1]
            carts.append((try? Cart.reduce(previous, action)) ?? previous)
        }.map(\.guitarCount)
        #expect(counts == [0, 1, 2, 3, 3, 2, 1, 0, 1])
    }

    // MARK: - Removing what was ordered

    @Test func orderingTheCartAsItWasCheckedOutEmptiesIt() {
        let cart = Self.cart((Self.longV, 2), (Self.sky, 1))
        #expect(cart.removing(ordered: cart.lines) == .empty)
    }

    @Test func aGuitarAddedWhileCheckingOutStays() {
        let checkedOut = Self.cart((Self.longV, 2), (Self.sky, 1))
        // Meanwhile, in another tab: one more Long V and a Koa.
        let now = Self.cart((Self.longV, 3), (Self.sky, 1), (Self.koa, 1))
        #expect(now.removing(ordered: checkedOut.lines) == Self.cart((Self.longV, 1), (Self.koa, 1)))
    }

    @Test func linesThatAreNotInTheCartAreIgnored() {
        let cart = Self.cart((Self.longV, 2))
        #expect(cart.removing(ordered: [CartLine(guitar: Self.koa, quantity: 3)]) == cart)
        #expect(Cart.empty.removing(ordered: [CartLine(guitar: Self.koa, quantity: 1)]) == .empty)
        #expect(cart.removing(ordered: []) == cart)
    }

    @Test func orderingMoreThanTheCartHoldsNowDropsTheLine() {
        // Lowered in another tab after the checkout: the line goes, nothing goes negative.
        let cart = Self.cart((Self.longV, 1), (Self.sky, 2))
        #expect(cart.removing(ordered: [CartLine(guitar: Self.longV, quantity: 3)]) == Self.cart((Self.sky, 2)))
        #expect(
            cart.removing(ordered: [CartLine(guitar: Self.sky, quantity: 1)])
                == Self.cart((Self.longV, 1), (Self.sky, 1)))
    }

    @Test func errorsSayWhatWentWrong() {
        #expect(CartError.unknownLine(id: "x").message == "There is no line 'x' in the cart.")
        #expect(CartError.quantityLimit(maximum: 10).message.contains("at most 10"))
        #expect(CartError.lineLimit(maximum: 20).message.contains("at most 20 different guitars"))
        #expect(CartError.guitarLimit(maximum: 50).message.contains("at most 50 guitars"))
        #expect(CartAction.add(.standard).name == "add")
        #expect(CartAction.clear.name == "clear")
    }
}
