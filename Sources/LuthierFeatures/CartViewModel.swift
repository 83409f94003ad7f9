import Foundation
import LuthierDomain

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
    private let now: @Sendable () -> Date
    private let output: CurrentValueBroadcast<CartOutput>
    private let applied: AsyncStream<AppliedAction>
    private let appliedInput: AsyncStream<AppliedAction>.Continuation

    /// - Parameters:
    ///   - discounts: the codes the shop's configuration offers.
    ///   - now: wall-clock time for discount expiry.
    public init(cart: Cart = .empty, discounts: [DiscountCode] = [], now: @escaping @Sendable () -> Date = Date.init) {
        self.cart = cart
        self.discounts = discounts
        self.now = now
        output = CurrentValueBroadcast(CartOutput(cart: cart, discount: nil))
        (applied, appliedInput) = AsyncStream<AppliedAction>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
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

    private func publish() {
        output.send(CartOutput(cart: cart, discount: discount.flatMap { $0.isValid(at: now()) ? $0 : nil }))
    }

    public var currentCart: Cart { cart }

    public nonisolated var currentOutput: CartOutput { output.value }

    public nonisolated func outputs() -> AsyncStream<CartOutput> { output.values() }

    /// The applied actions, for the one analytics subscriber.
    public nonisolated func appliedActions() -> AsyncStream<AppliedAction> { applied }

    public nonisolated func close() {
        appliedInput.finish()
        output.finish()
    }
}
