import Foundation
import LuthierDomain

/// Everything the checkout page shows, derived from `CheckoutState` by a pure function. Every
/// price is in the shown currency; while another currency is loading, prices read "…".
public struct CheckoutOutput: Hashable, Sendable {
    public static let placeholder = "…"

    public var checkoutID: String
    public var description: String
    public var parts: [PartRow]
    public var estimate: String
    public var availability: String
    public var isAvailable: Bool
    public var shippingOptions: [ShippingChoice]
    public var deliveryTime: String
    public var currencies: [CurrencyChoice]
    public var basePrice: String
    public var additions: String
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
        let guitar = state.checkout.guitar
        let rate = state.shownRate
        let pending = state.arePricesPending
        func price(_ dollars: Money) -> String { pending ? Self.placeholder : rate.convert(dollars).formatted() }

        checkoutID = state.checkout.id
        description = guitar.description
        parts = PartRow.parts(of: guitar, price: price)
        estimate = state.checkout.estimate.label
        availability = state.availability.label
        isAvailable = state.availability.isAvailable
        shippingOptions = state.checkout.shippingOptions.map { option in
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
        let quote = Quote(guitar: guitar, shipping: state.shippingOption, rate: rate)
        basePrice = pending ? Self.placeholder : quote.basePrice.formatted()
        additions = pending ? Self.placeholder : quote.additions.formatted()
        shipping = pending ? Self.placeholder : quote.shipping.formattedOrFree()
        grandTotal = pending ? Self.placeholder : quote.total.formatted()
        arePricesPending = pending
        ratesNote =
            rate.currency == .usd || pending ? nil : "\(rate.currency.code) rates as of \(Self.format(rate.asOf))"
        notice = state.notice
        isOrdering = state.isOrdering
        if let order = state.order {
            confirmation = OrderConfirmation(order: order)
            orderButtonLabel = "Ordered"
        } else {
            confirmation = nil
            orderButtonLabel =
                !state.availability.isAvailable ? "Model unavailable" : state.isOrdering ? "Ordering…" : "Order now"
        }
        isOrderDisabled = !state.isOrderable
    }

    /// Dates as the shop shows them, in UTC so that every visitor reads the same.
    public static func format(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "d MMM yyyy, HH:mm 'UTC'"
        return formatter.string(from: date)
    }
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

    public init(order: Order) {
        number = order.number
        link = "/orders/\(order.number)?key=\(order.accessKey)"
        total = order.quote.total.formatted()
    }
}
