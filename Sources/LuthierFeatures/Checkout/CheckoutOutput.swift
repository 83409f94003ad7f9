import Foundation
import LuthierDomain

/// Everything the checkout page shows, derived from `CheckoutState` by a pure function. Every
/// price is in the shown currency; while another currency is loading, prices read "…".
public struct CheckoutOutput: Hashable, Sendable {
    public static let placeholder = "…"

    public var checkoutID: String
    /// The guitar's description, or "3 guitars" for a cart.
    public var description: String
    /// Whether this checks out a cart (lines with quantities) rather than the builder's guitar.
    public var isCart: Bool
    public var title: String
    public var lines: [CheckoutLineOutput]
    /// The builder's guitar part by part (empty for a cart, whose lines say it).
    public var parts: [PartRow]
    public var estimate: String
    public var availability: String
    public var isAvailable: Bool
    public var shippingOptions: [ShippingChoice]
    public var deliveryTime: String
    public var currencies: [CurrencyChoice]
    public var basePrice: String
    public var additions: String
    /// "WELCOME10 (10 % off)" and the amount it takes off, when the cart had a code.
    public var discountLabel: String?
    public var discount: String?
    public var shipping: String
    public var grandTotal: String
    public var arePricesPending: Bool
    public var ratesNote: String?
    public var notice: String?
    public var orderButtonLabel: String
    public var isOrderDisabled: Bool
    public var isOrdering: Bool
    public var confirmation: OrderConfirmation?

    public init(state: CheckoutState) {
        let checkout = state.checkout
        let rate = state.shownRate
        let pending = state.arePricesPending
        func price(_ dollars: Money) -> String { pending ? Self.placeholder : rate.convert(dollars).formatted() }

        checkoutID = checkout.id
        isCart = checkout.source == .cart
        let count = checkout.guitarCount
        description =
            isCart || checkout.lines.count != 1
            ? (count == 1 ? "1 guitar" : "\(count) guitars") : checkout.lines[0].guitar.description
        title = count == 1 ? "Your guitar" : "Your guitars"
        lines = checkout.lines.enumerated().map { index, line in
            CheckoutLineOutput(index: index, line: line, price: price)
        }
        parts = isCart ? [] : checkout.lines.first.map { PartRow.parts(of: $0.guitar, price: price) } ?? []
        estimate = checkout.estimate.label
        availability = state.availability.label
        isAvailable = state.availability.isAvailable
        shippingOptions = checkout.shippingOptions.map { option in
            ShippingChoice(
                value: option.method.rawValue,
                name: option.method.name,
                price: option.price.isZero ? "Free" : price(option.price),
                deliveryTime: option.method.deliveryTime,
                inputID: "shipping-\(option.method.rawValue)",
                isSelected: option.method == state.shipping
            )
        }
        deliveryTime = state.shipping.deliveryTime
        currencies = Currency.allCases.map { currency in
            CurrencyChoice(
                code: currency.code,
                symbol: currency.symbol,
                inputID: "currency-\(currency.code)",
                isSelected: currency == state.selectedCurrency
            )
        }
        let quote = Quote(
            lines: checkout.cartLines, shipping: state.shippingOption, rate: rate, discount: checkout.discount)
        basePrice = pending ? Self.placeholder : quote.basePrice.formatted()
        additions = pending ? Self.placeholder : quote.additions.formatted()
        discountLabel = checkout.discount?.label
        discount = checkout.discount.map { _ in pending ? Self.placeholder : "−" + quote.discount.formatted() }
        shipping = pending ? Self.placeholder : quote.shipping.formattedOrFree()
        grandTotal = pending ? Self.placeholder : quote.total.formatted()
        arePricesPending = pending
        ratesNote =
            rate.currency == .usd || pending ? nil : "\(rate.currency.code) rates as of \(Self.format(rate.asOf))"
        notice = state.notice?.message
        isOrdering = state.isOrdering
        if let order = state.order {
            confirmation = OrderConfirmation(order: order)
            orderButtonLabel = "Ordered"
        } else {
            confirmation = nil
            let unavailableLabel = checkout.lines.count == 1 ? "Model unavailable" : "Not all available"
            orderButtonLabel =
                !state.availability.isAvailable ? unavailableLabel : state.isOrdering ? "Ordering…" : "Order now"
        }
        isOrderDisabled = !state.isOrderable
    }

    /// Dates as the shop shows them, in UTC so that every visitor reads the same:
    /// "22 Nov 2026, 08:05 UTC". Built from calendar fields rather than a `DateFormatter`, which
    /// is not `Sendable` and costs more to make than a checkout output does to compute.
    public static func format(_ date: Date) -> String {
        let fields = utcCalendar.dateComponents([.year, .month, .day, .hour, .minute], from: date)
        let month = (fields.month ?? 1) - 1
        func twoDigits(_ value: Int?) -> String {
            let value = value ?? 0
            return value < 10 ? "0\(value)" : "\(value)"
        }
        return "\(fields.day ?? 1) \(monthNames[min(max(month, 0), 11)]) \(fields.year ?? 1970), "
            + "\(twoDigits(fields.hour)):\(twoDigits(fields.minute)) UTC"
    }

    private static let monthNames = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()
}

/// One of the four parts with its priced name, in the shown currency.
public struct PartRow: Hashable, Sendable {
    public var title: String
    public var pricedName: String

    init(title: String, name: String, surcharge: Money, price: (Money) -> String) {
        self.title = title
        pricedName = surcharge.isZero ? name : "\(name) (+\(price(surcharge)))"
    }

    /// The four parts of `guitar`, each surcharge shown by `price` (a conversion, or a placeholder).
    public static func parts(of guitar: Guitar, price: (Money) -> String) -> [PartRow] {
        [
            PartRow(title: "Shape", name: guitar.shape.name, surcharge: guitar.shape.price, price: price),
            PartRow(title: "Color", name: guitar.color.name, surcharge: guitar.color.price, price: price),
            PartRow(title: "Body", name: guitar.body.name, surcharge: guitar.body.price, price: price),
            PartRow(title: "Fretboard", name: guitar.fretboard.name, surcharge: guitar.fretboard.price, price: price),
        ]
    }
}

/// One line of a checkout: which guitar, how many, whether it can be built, and its prices.
public struct CheckoutLineOutput: Hashable, Sendable {
    /// The line's position, so the page can pair it with its picture.
    public var index: Int
    public var description: String
    public var quantity: Int
    public var availability: String
    public var isAvailable: Bool
    /// What is missing for it, when it cannot be built ("Black Limba body blanks").
    public var missing: String?
    public var unitPrice: String
    public var total: String

    init(index: Int, line: CheckoutLine, price: (Money) -> String) {
        self.index = index
        description = line.guitar.description
        quantity = line.quantity
        availability = line.availability.label
        isAvailable = line.availability.isAvailable
        if case .unavailable(let woods) = line.availability {
            missing = "Out of " + woods.joined(separator: " and ")
        } else {
            missing = nil
        }
        unitPrice = price(line.guitar.price)
        total = price(line.guitar.price.times(line.quantity))
    }
}

/// One shipping option on the checkout page.
public struct ShippingChoice: Hashable, Sendable {
    public var value: String
    public var name: String
    public var price: String
    public var deliveryTime: String
    public var inputID: String
    public var isSelected: Bool
}

/// One currency in the picker.
public struct CurrencyChoice: Hashable, Sendable {
    public var code: String
    public var symbol: String
    public var inputID: String
    public var isSelected: Bool
}

/// What "Congratulations!" shows.
public struct OrderConfirmation: Hashable, Sendable {
    public var number: String
    public var link: String
    public var total: String
    public var guitarCount: Int

    public init(order: Order) {
        number = order.number
        link = "/orders/\(order.number)?key=\(order.accessKey)"
        total = order.quote.total.formatted()
        guitarCount = order.guitarCount
    }
}
