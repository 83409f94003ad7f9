import Foundation
import LuthierDomain

/// The cart screen's logic: the shopping cart's `scan`, its discount code, and taking out what
/// was ordered. Nothing here is asynchronous, so it asks for no work; what it refuses (a line
/// that is not there, a full cart, a code that does not exist or has expired) changes nothing and
/// is told as a sentence.
public struct CartFeature: Reducer {
    public enum Action: Hashable, Sendable, Codable {
        /// A customer's change, folded by the pure `Cart.reduce`.
        case cart(CartAction)
        /// A discount code as typed (case and surrounding spaces do not matter).
        case applyDiscount(code: String)
        /// An order was placed from a checkout: a cart checkout's guitars leave the cart, once.
        /// Indirect, as `BuildAction`'s checkouts are: the action stays small enough to be kept
        /// inline where it is type-erased.
        indirect case settle(Checkout)
        /// The shop's codes changed (the admin added or expired one): the applied code takes its
        /// new terms, and leaves the cart if it no longer works.
        case discountsChanged
    }

    public enum Refusal: Error, Hashable, Sendable {
        case cart(CartError)
        case discount(CartViewModel.DiscountFailure)
    }

    /// The codes the shop offers, as they are at the moment a code is typed. A reference to the
    /// shop's one book, so that a session holds a pointer rather than a closure and its context.
    let book: DiscountBook
    /// Wall-clock time, for a code's expiry.
    let now: @Sendable () -> Date

    public init(discounts: [DiscountCode], now: @escaping @Sendable () -> Date) {
        self.init(book: DiscountBook(discounts), now: now)
    }

    /// - Parameter book: the shop's codes, read whenever a code is judged.
    public init(book: DiscountBook, now: @escaping @Sendable () -> Date) {
        self.book = book
        self.now = now
    }

    public func reduce(into state: inout CartState, action: Action) throws(Refusal) -> Effect<Action> {
        switch action {
        case .cart(let action):
            do {
                state.cart = try Cart.reduce(state.cart, action)
            } catch {
                throw .cart(error)
            }
        case .applyDiscount(let code):
            guard let match = Self.code(typed: code, among: book.current) else {
                throw .discount(.unknown(code.trimmingCharacters(in: .whitespaces)))
            }
            guard match.isValid(at: now()) else { throw .discount(.expired(match.code)) }
            state.discount = match
        case .settle(let checkout):
            guard checkout.source == .cart, state.settledCheckoutID != checkout.id else { return .none }
            state.settledCheckoutID = checkout.id
            if checkout.discount != nil, state.discount == checkout.discount { state.discount = nil }
            state.cart = state.cart.removing(ordered: checkout.cartLines)
        case .discountsChanged:
            guard let applied = state.discount, let latest = Self.code(typed: applied.code, among: book.current) else {
                return .none
            }
            state.discount = latest.isValid(at: now()) ? latest : nil
        }
        return .none
    }

    /// The shop's code a customer typed, if any: case and surrounding spaces do not matter.
    static func code(typed: String, among discounts: [DiscountCode]) -> DiscountCode? {
        let typed = typed.trimmingCharacters(in: .whitespaces)
        return discounts.first { $0.code.caseInsensitiveCompare(typed) == .orderedSame }
    }
}

/// What the cart remembers: its lines, the code applied, and the last cart checkout taken out of
/// it (so that an order is never taken out twice, even after a restart).
public struct CartState: Hashable, Sendable, Codable {
    public var cart: Cart
    /// Out of line: most carts carry no code, and the state is kept by every session's store, its
    /// output and each step its flight recorder keeps.
    @OutOfLine public var discount: DiscountCode?
    public var settledCheckoutID: String?

    public init(cart: Cart = .empty, discount: DiscountCode? = nil, settledCheckoutID: String? = nil) {
        self.cart = cart
        self.discount = discount
        self.settledCheckoutID = settledCheckoutID
    }
}
