import Foundation
import LuthierDomain
import LuthierFeatures

@testable import LuthierWeb

/// What must hold of every session's state whatever was posted to it: only real options,
/// quantities within the limit, totals that are the sum of their lines, codes the shop offers, and
/// outputs that are exactly what the state makes. Prices are recomputed here from the design's
/// price list (not from the domain's own price properties).
struct ShopInvariants: Sendable {
    /// Surcharges in dollars by field and raw value (DESIGN.md, "Domain facts").
    static let surcharges: [String: [String: Int]] = [
        "shape": ["casual": 0, "chunky": 0, "longV": 75, "sharpV": 100],
        "color": ["natural": 0, "sky": 150, "dusk": 0, "earth": 50],
        "body": ["mahogany": 0, "blackLimba": 150, "swampAsh": 80, "koa": 100],
        "fretboard": ["rosewood": 0, "birdseyeMaple": 80, "ebony": 100, "blackLimba": 120],
    ]
    static let basePrice = 2_000
    static let shippingPrices: [ShippingMethod: Int] = [.pickup: 0, .ground: 100, .express: 250]

    /// The codes the shop was configured with, and the time they are judged at.
    let codes: [DiscountCode]
    let now: Date

    // MARK: values

    /// A guitar's price in cents, from the price list; nil if any part is not a real option.
    static func priceInCents(_ guitar: Guitar) -> Int? {
        var dollars = basePrice
        for field in GuitarField.allCases {
            guard let surcharge = surcharges[field.rawValue]?[guitar.rawValue(of: field)] else { return nil }
            dollars += surcharge
        }
        return dollars * 100
    }

    static func problems(in guitar: Guitar, _ label: String) -> [String] {
        var problems: [String] = []
        for field in GuitarField.allCases where !field.allowedValues.contains(guitar.rawValue(of: field)) {
            problems.append("\(label): \(field.rawValue) is not a real option: \(guitar.rawValue(of: field))")
        }
        if priceInCents(guitar) == nil { problems.append("\(label): \(guitar) has no price") }
        return problems
    }

    /// The cart's total in cents, from its lines.
    static func totalInCents(_ lines: [CartLine]) -> Int {
        lines.reduce(0) { $0 + (priceInCents($1.guitar) ?? 0) * $1.quantity }
    }

    static func problems(in cart: Cart, _ label: String) -> [String] {
        var problems: [String] = []
        var seen: Set<String> = []
        for line in cart.lines {
            problems += Self.problems(in: line.guitar, "\(label) line \(line.id)")
            if !(1...Cart.maximumQuantity).contains(line.quantity) {
                problems.append("\(label): line \(line.id) has quantity \(line.quantity)")
            }
            if !seen.insert(line.id).inserted { problems.append("\(label): line \(line.id) appears twice") }
        }
        if cart.total.currency != .usd || cart.total.minorUnits != Self.totalInCents(cart.lines) {
            problems.append("\(label): total \(cart.total) is not \(Self.totalInCents(cart.lines)) cents")
        }
        if cart.guitarCount != cart.lines.reduce(0, { $0 + $1.quantity }) {
            problems.append("\(label): \(cart.guitarCount) guitars counted")
        }
        return problems
    }

    func problems(in code: DiscountCode?, _ label: String) -> [String] {
        guard let code, !codes.contains(code) else { return [] }
        return ["\(label): code \(code) is not one the shop offers"]
    }

    /// `amount × (100 − percent) / 100` in cents, rounded half-to-even.
    static func discounted(_ cents: Int, percent: Int) -> Int {
        let numerator = cents * (100 - percent)
        let (quotient, remainder) = numerator.quotientAndRemainder(dividingBy: 100)
        if remainder * 2 > 100 || (remainder * 2 == 100 && quotient % 2 == 1) { return quotient + 1 }
        return quotient
    }

    /// What the cart page must show for `cart` and `code`, recomputed from the lines.
    func problems(in output: CartOutput, cart: Cart, code: DiscountCode?, _ label: String) -> [String] {
        var problems: [String] = []
        let total = Self.totalInCents(cart.lines)
        let expectedTotal = Money(minorUnits: total, currency: .usd).formatted()
        if output.total != expectedTotal {
            problems.append("\(label): total shows \(output.total), not \(expectedTotal)")
        }
        if output.guitarCount != cart.guitarCount || output.lines.count != cart.lines.count {
            problems.append("\(label): shows \(output.guitarCount) guitars in \(output.lines.count) lines")
        }
        for (shown, line) in zip(output.lines, cart.lines) {
            let lineTotal = Money(minorUnits: (Self.priceInCents(line.guitar) ?? 0) * line.quantity, currency: .usd)
            if shown.id != line.id || shown.quantity != line.quantity || shown.total != lineTotal.formatted()
                || shown.isAtMaximum != (line.quantity >= Cart.maximumQuantity)
            {
                problems.append("\(label): line \(line.id) × \(line.quantity) shows \(shown)")
            }
        }
        let valid = code.flatMap { $0.isValid(at: now) ? $0 : nil }
        if let valid, !cart.isEmpty {
            let expected = Money(minorUnits: Self.discounted(total, percent: valid.percent), currency: .usd)
            if output.discountedTotal != expected.formatted() {
                problems.append("\(label): discounted total shows \(output.discountedTotal ?? "none"), not \(expected)")
            }
        } else if output.discountedTotal != nil {
            problems.append("\(label): a discounted total without a valid code")
        }
        return problems
    }

    /// A checkout's lines, choices and amounts.
    func problems(in state: CheckoutState, _ label: String) -> [String] {
        var problems: [String] = []
        let checkout = state.checkout
        if checkout.lines.isEmpty { problems.append("\(label): a checkout without lines") }
        for line in checkout.lines {
            problems += Self.problems(in: line.guitar, "\(label) line")
            if !(1...Cart.maximumQuantity).contains(line.quantity) {
                problems.append("\(label): a line of \(line.quantity)")
            }
        }
        if checkout.source == .builder, checkout.lines.count != 1 || checkout.lines.first?.quantity != 1 {
            problems.append("\(label): a builder checkout of \(checkout.guitarCount) guitars")
        }
        problems += self.problems(in: checkout.discount, label)
        if !checkout.shippingOptions.contains(where: { $0.method == state.shipping }) {
            problems.append("\(label): shipping \(state.shipping) is not offered")
        }
        for option in checkout.shippingOptions
        where option.price.minorUnits != (Self.shippingPrices[option.method] ?? -1) * 100 {
            problems.append("\(label): \(option.method) costs \(option.price)")
        }
        if state.shownRate.currency == .usd, state.shownRate.perDollar != 1 {
            problems.append("\(label): a dollar rate of \(state.shownRate.perDollar)")
        }
        problems += quoteProblems(state, label)
        if let order = state.order {
            problems += Self.problems(in: order, "\(label) order")
            if order.checkoutID != checkout.id || order.lines != checkout.cartLines {
                problems.append("\(label): order \(order.number) is not of this checkout's lines")
            }
        }
        let output = CheckoutOutput(state: state)
        if !state.arePricesPending, output.grandTotal == CheckoutOutput.placeholder {
            problems.append("\(label): prices shown as placeholders with no rate loading")
        }
        return problems
    }

    /// In dollars the quote is recomputed from the price list; in other currencies it must add up.
    private func quoteProblems(_ state: CheckoutState, _ label: String) -> [String] {
        let checkout = state.checkout
        let quote = Quote(
            lines: checkout.cartLines, shipping: state.shippingOption, rate: state.shownRate,
            discount: checkout.discount)
        var problems: [String] = []
        if quote.total.minorUnits
            != quote.basePrice.minorUnits + quote.additions.minorUnits - quote.discount.minorUnits
            + quote.shipping.minorUnits
        {
            problems.append("\(label): the quote does not add up: \(quote)")
        }
        if state.shownRate.currency == .usd {
            let guitars = Self.totalInCents(checkout.cartLines)
            let discount = checkout.discount.map { guitars - Self.discounted(guitars, percent: $0.percent) } ?? 0
            let shipping = (Self.shippingPrices[state.shipping] ?? 0) * 100
            let expected = guitars - discount + shipping
            if quote.total.minorUnits != expected {
                problems.append("\(label): grand total \(quote.total) is not \(expected) cents")
            }
            let output = CheckoutOutput(state: state)
            if !state.arePricesPending, output.grandTotal != Money(minorUnits: expected, currency: .usd).formatted() {
                problems.append("\(label): grand total shows \(output.grandTotal)")
            }
        }
        return problems
    }

    /// A stored order: real guitars, quantities within the limit, amounts that add up.
    static func problems(in order: Order, _ label: String) -> [String] {
        var problems: [String] = []
        if order.lines.isEmpty { problems.append("\(label) \(order.number): no lines") }
        for line in order.lines {
            problems += Self.problems(in: line.guitar, "\(label) \(order.number)")
            if !(1...Cart.maximumQuantity).contains(line.quantity) {
                problems.append("\(label) \(order.number): a line of \(line.quantity)")
            }
        }
        let quote = order.quote
        if quote.total.minorUnits
            != quote.basePrice.minorUnits + quote.additions.minorUnits - quote.discount.minorUnits
            + quote.shipping.minorUnits
        {
            problems.append("\(label) \(order.number): amounts do not add up: \(quote)")
        }
        if order.currency == .usd {
            let guitars = totalInCents(order.lines)
            if quote.basePrice.minorUnits + quote.additions.minorUnits != guitars {
                problems.append("\(label) \(order.number): guitars cost \(guitars) cents, ordered \(quote)")
            }
        }
        return problems
    }

    /// A stored snapshot (what a restart would find).
    func problems(in snapshot: SessionSnapshot, _ label: String) -> [String] {
        var problems = Self.problems(in: snapshot.guitar, label) + Self.problems(in: snapshot.cart, label)
        problems += self.problems(in: snapshot.discount, label)
        if let checkout = snapshot.checkout {
            problems += self.problems(in: CheckoutState(snapshot: checkout), "\(label) checkout")
        }
        return problems
    }

    /// A live session: its state, its outputs (exactly what the state makes), its rendered
    /// fragments (caught up with the outputs) and its stored snapshot (caught up with the state).
    func problems(in session: Session, stored: SessionSnapshot?) -> [String] {
        let label = "session \(session.id.cookieValue.prefix(8))"
        let build = session.build.latestState
        var problems = Self.problems(in: build.guitar, label)
        let buildOutput = session.build.currentOutput
        if buildOutput != BuildOutput(state: build) {
            problems.append("\(label): the builder shows \(buildOutput.description), state \(build.guitar)")
        }
        if let price = Self.priceInCents(build.guitar),
            buildOutput.price != Money(minorUnits: price, currency: .usd).formatted()
        {
            problems.append("\(label): the builder's price shows \(buildOutput.price), not \(price) cents")
        }
        let cart = session.cart.latestState
        problems += Self.problems(in: cart.cart, label)
        problems += self.problems(in: cart.discount, label)
        let cartOutput = session.cart.currentOutput
        problems += self.problems(in: cartOutput, cart: cart.cart, code: cart.discount, label)
        if cartOutput != CartOutput(cart: cart.cart, discount: cart.discount.flatMap { $0.isValid(at: now) ? $0 : nil })
        {
            problems.append("\(label): the cart output is not the one its state makes")
        }
        if let checkout = session.build.currentCheckout {
            let state = checkout.latestState
            problems += self.problems(in: state, "\(label) checkout")
            if checkout.currentOutput != CheckoutOutput(state: state) {
                problems.append("\(label): the checkout output is not the one its state makes")
            }
        }
        let fragments = Dictionary(
            session.fragments.changes(since: 0).fragments.map { ($0.target, $0.html) }, uniquingKeysWith: { $1 })
        if fragments["guitar-price"] != buildOutput.price {
            problems.append("\(label): the price fragment is \(fragments["guitar-price"] ?? "missing")")
        }
        if fragments["guitar-description"] != buildOutput.description {
            problems.append("\(label): the description fragment is \(fragments["guitar-description"] ?? "missing")")
        }
        if fragments[CartFragments.badge]?.contains(">\(cartOutput.guitarCount)</span>") != true {
            problems.append("\(label): the badge fragment is \(fragments[CartFragments.badge] ?? "missing")")
        }
        if session.openStreamCount != 0 || session.fragments.subscriberCount != 0 {
            problems.append(
                "\(label): \(session.openStreamCount) streams still open, "
                    + "\(session.fragments.subscriberCount) fragment subscribers")
        }
        if let stored {
            if stored.guitar != build.guitar || stored.cart != cart.cart || stored.discount != cart.discount {
                problems.append("\(label): the stored snapshot differs from the live state")
            }
        } else if build.guitar != .standard || !cart.cart.isEmpty || cart.discount != nil
            || session.build.currentCheckout != nil
        {
            // Only a session that never had a change accepted may be unstored (a page view).
            problems.append("\(label): changed but never stored")
        }
        return problems
    }
}
