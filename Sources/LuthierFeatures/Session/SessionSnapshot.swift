import Foundation
import LuthierDomain

/// Everything a customer's session holds that must survive a restart: the builder's guitar, the
/// cart with its code, and a checkout in progress (or just ordered). Loading states are not kept:
/// a restored session is idle, and a currency whose rate was loading is fetched again.
public struct SessionSnapshot: Hashable, Sendable, Codable {
    /// The stored format; a future change bumps it and reads the older one explicitly.
    public static let currentFormat = 1

    public var format: Int
    /// Grows with every save of the session, so that an older save never overwrites a newer one.
    public var revision: Int
    /// The anonymous key orders of this session carry.
    public var orderKey: String
    /// The anonymous key its analytics events carry (separate, so analytics cannot find orders).
    public var analyticsKey: String
    public var guitar: Guitar
    public var cart: Cart
    /// Out of line, as the cart's own code is.
    @OutOfLine public var discount: DiscountCode?
    /// Out of line: most sessions never check out, and every session keeps its snapshot as
    /// stored (469 bytes inline with the checkout, 133 without).
    @OutOfLine public var checkout: CheckoutSnapshot?
    /// The last cart checkout whose order was taken out of the cart, so it is never taken twice.
    public var settledCheckoutID: String?
    /// The guided build where the customer left it (absent in sessions saved before the guide).
    public var guide: GuideState?

    public init(
        orderKey: String, analyticsKey: String, guitar: Guitar = .standard, cart: Cart = .empty,
        discount: DiscountCode? = nil, checkout: CheckoutSnapshot? = nil, settledCheckoutID: String? = nil,
        guide: GuideState? = nil, revision: Int = 0
    ) {
        format = Self.currentFormat
        self.revision = revision
        self.settledCheckoutID = settledCheckoutID
        self.orderKey = orderKey
        self.analyticsKey = analyticsKey
        self.guitar = guitar
        self.cart = cart
        self.discount = discount
        self.checkout = checkout
        self.guide = guide
    }
}

extension SessionSnapshot {
    /// Whether the session holds something a customer would come back for: a cart, a code, a
    /// checkout or an order. A session that only tried a few options is an anonymous leftover,
    /// kept a day rather than the full retention, so that a flood of anonymous posts does not
    /// fill the store for a month.
    public var isWorthKeeping: Bool {
        !cart.isEmpty || discount != nil || checkout != nil || settledCheckoutID != nil
    }

    /// Whether the session differs from a brand-new one at all. One that does not (a cookie-less
    /// post that chose what was already chosen) is not stored: there is nothing to come back to.
    public var holdsSomething: Bool {
        guitar != .standard || guide != nil || isWorthKeeping
    }
}

/// A checkout as the customer left it: what it is for, the choices made, and its order if placed.
public struct CheckoutSnapshot: Hashable, Sendable, Codable {
    public var checkout: Checkout
    public var availability: Availability
    public var shipping: ShippingMethod
    public var selectedCurrency: Currency
    public var shownRate: ExchangeRate
    public var order: Order?

    public init(state: CheckoutState) {
        checkout = state.checkout
        availability = state.availability
        shipping = state.shipping
        selectedCurrency = state.selectedCurrency
        shownRate = state.shownRate
        order = state.order
    }
}

extension SessionSnapshot {
    /// Whether the two hold the same session, whatever their revisions: storing one over the
    /// other would store nothing new.
    public func sameContent(as other: SessionSnapshot) -> Bool {
        var this = self
        this.revision = other.revision
        return this == other
    }
}
