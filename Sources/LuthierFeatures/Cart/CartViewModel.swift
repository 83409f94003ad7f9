import Foundation
import LuthierDomain
import Synchronization

/// The cart as an input/output transformation: `CartAction`s in, `CartOutput` out.
///
/// Every action is folded over the previous cart by the pure `Cart.reduce` (the `scan` of the
/// reactive shopping cart); refused actions change nothing. Each applied action is also offered to
/// a second subscriber, `appliedActions()`, for analytics: its buffer is bounded and never waited
/// on, so a slow or failing recorder can neither slow nor break the cart.
public actor CartViewModel {
    /// An applied action with the cart it produced, as the analytics subscriber sees it.
    public struct AppliedAction: Hashable, Sendable {
        public var action: CartAction
        public var cart: Cart
        public var at: Date
    }

    public enum DiscountFailure: Error, Equatable, Sendable {
        case unknown(String)
        case expired(String)

        public var message: String {
            switch self {
            case .unknown(let code): "'\(code)' is not a discount code we know."
            case .expired(let code): "The code '\(code)' has expired."
            }
        }
    }

    private var cart: Cart
    private var discount: DiscountCode?
    private let discounts: [DiscountCode]
    private var settledCheckoutID: String?
    private let now: @Sendable () -> Date
    private let latest: Mutex<Latest>
    private let output: CurrentValueBroadcast<CartOutput>
    private let applied: AsyncStream<AppliedAction>
    private let appliedInput: AsyncStream<AppliedAction>.Continuation

    /// - Parameters:
    ///   - cart: the cart to start from (a restored session's).
    ///   - discount: the code applied before, if any; kept only while it is still valid.
    ///   - discounts: the codes the shop's configuration offers.
    ///   - now: wall-clock time for discount expiry.
    ///   - settledCheckoutID: the last cart checkout whose order was taken out of the cart.
    public init(
        cart: Cart = .empty,
        discount: DiscountCode? = nil,
        discounts: [DiscountCode] = [],
        settledCheckoutID: String? = nil,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        let discount = discount.flatMap { $0.isValid(at: now()) ? $0 : nil }
        self.cart = cart
        self.discount = discount
        self.discounts = discounts
        self.settledCheckoutID = settledCheckoutID
        self.now = now
        latest = Mutex(Latest(cart: cart, discount: discount, settledCheckoutID: settledCheckoutID))
        output = CurrentValueBroadcast(CartOutput(cart: cart, discount: discount))
        (applied, appliedInput) = AsyncStream<AppliedAction>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
    }

    /// The cart and code after the latest applied input, readable without waiting.
    public struct Latest: Hashable, Sendable {
        public var cart: Cart
        public var discount: DiscountCode?
        public var settledCheckoutID: String?
    }

    /// Applies one action, or refuses it and changes nothing.
    public func send(_ action: CartAction) throws(CartError) {
        cart = try Cart.reduce(cart, action)
        publish()
        appliedInput.yield(AppliedAction(action: action, cart: cart, at: now()))
    }

    /// Applies a discount code (case-insensitive), or says why not and keeps the one there was.
    public func applyDiscount(code: String) throws(DiscountFailure) {
        let typed = code.trimmingCharacters(in: .whitespaces)
        guard let match = discounts.first(where: { $0.code.caseInsensitiveCompare(typed) == .orderedSame }) else {
            throw .unknown(typed)
        }
        guard match.isValid(at: now()) else { throw .expired(match.code) }
        discount = match
        publish()
    }

    /// Takes an order's guitars out of the cart once it has been placed from a checkout of it.
    /// Not a customer action, so analytics does not count it.
    public func removeOrdered(_ lines: [CartLine]) {
        cart = cart.removing(ordered: lines)
        publish()
    }

    /// Takes the guitars of an order placed from a cart checkout out of the cart, once per checkout
    /// however often it is called (the order route and the session's driver both call it, and a
    /// restored session calls it again). A builder checkout leaves the cart alone.
    public func settle(_ checkout: Checkout) {
        guard checkout.source == .cart, settledCheckoutID != checkout.id else { return }
        settledCheckoutID = checkout.id
        if checkout.discount != nil, discount == checkout.discount { discount = nil }
        removeOrdered(checkout.cartLines)
    }

    /// The code to check out with: the applied one, if it is still valid now.
    public var validDiscount: DiscountCode? {
        discount.flatMap { $0.isValid(at: now()) ? $0 : nil }
    }

    private func publish() {
        latest.withLock { $0 = Latest(cart: cart, discount: discount, settledCheckoutID: settledCheckoutID) }
        output.send(CartOutput(cart: cart, discount: validDiscount))
    }

    public var currentCart: Cart { cart }

    /// What a session saves.
    public nonisolated var latestState: Latest { latest.withLock { $0 } }

    public nonisolated var currentOutput: CartOutput { output.value }

    public nonisolated func outputs() -> AsyncStream<CartOutput> { output.values() }

    /// The applied actions, for the one analytics subscriber.
    public nonisolated func appliedActions() -> AsyncStream<AppliedAction> { applied }

    public nonisolated func close() {
        appliedInput.finish()
        output.finish()
    }
}
