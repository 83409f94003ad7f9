import Foundation
import LuthierDomain

/// The cart as the web layer drives it: `CartAction`s and codes in, `CartOutput` out. Its logic is
/// `CartFeature`, run by a `Store`.
///
/// Each applied customer action is also handed to a second subscriber, `applied`, for analytics
/// (the shop's `AnalyticsQueue`): a callback that must not wait, so a slow or failing recorder can
/// neither slow nor break the cart.
public final class CartViewModel: Sendable {
    /// An applied action with the cart it produced, as the analytics subscriber sees it.
    public struct AppliedAction: Hashable, Sendable {
        public var action: CartAction
        public var cart: Cart
        public var at: Date
    }

    public enum DiscountFailure: Error, Hashable, Sendable {
        case unknown(String)
        case expired(String)

        public var message: String {
            switch self {
            case .unknown(let code): "'\(code)' is not a discount code we know."
            case .expired(let code): "The code '\(code)' has expired."
            }
        }
    }

    /// What a session saves.
    public typealias Latest = CartState

    private let store: Store<CartFeature>
    private let output: SharedOutput<CartState, CartOutput>
    private let now: @Sendable () -> Date
    /// The shop's codes: an applied code is judged by the book's terms for it now.
    private let discounts: DiscountBook
    private let applied: @Sendable (AppliedAction) -> Void

    /// - Parameters:
    ///   - cart: the cart to start from (a restored session's).
    ///   - discount: the code applied before, if any; kept only while it is still valid.
    ///   - discounts: the codes the shop offers, as they are whenever a code is judged (the admin
    ///     may add or expire one meanwhile).
    ///   - now: wall-clock time for discount expiry.
    ///   - settledCheckoutID: the last cart checkout whose order was taken out of the cart.
    ///   - applied: told of each applied customer action, in order; it must return at once.
    public init(
        cart: Cart = .empty,
        discount: DiscountCode? = nil,
        discounts: DiscountBook = [],
        settledCheckoutID: String? = nil,
        now: @escaping @Sendable () -> Date = Date.init,
        taps: TapRecorder? = nil,
        applied: @escaping @Sendable (AppliedAction) -> Void = { _ in }
    ) {
        let state = CartState(
            cart: cart, discount: discounts.valid(discount, at: now()), settledCheckoutID: settledCheckoutID)
        store = Store(
            initialState: state, reducer: CartFeature(book: discounts, now: now),
            tap: taps.map { Tap($0, "cart") },
            trace: taps.map { StoreTrace($0, store: CartFeature.traceName) })
        output = SharedOutput(initial: state) { state in
            CartOutput(cart: state.cart, discount: discounts.valid(state.discount, at: now()))
        }
        self.discounts = discounts
        self.now = now
        self.applied = applied
    }

    /// Applies one action, or refuses it and changes nothing.
    public func send(_ action: CartAction) async throws(CartError) {
        do {
            let sent = try store.send(.cart(action))
            applied(AppliedAction(action: action, cart: sent.state.cart, at: now()))
        } catch {
            guard case .cart(let refusal) = error else { return }
            throw refusal
        }
    }

    /// Applies a discount code (case-insensitive), or says why not and keeps the one there was.
    public func applyDiscount(code: String) async throws(DiscountFailure) {
        do {
            try store.send(.applyDiscount(code: code))
        } catch {
            guard case .discount(let refusal) = error else { return }
            throw refusal
        }
    }

    /// Takes the guitars of an order placed from a cart checkout out of the cart, once per checkout
    /// however often it is called (the order route and the session's driver both call it, and a
    /// restored session calls it again). A builder checkout leaves the cart alone. Not a customer
    /// action, so analytics does not count it.
    public func settle(_ checkout: Checkout) {
        _ = try? store.send(.settle(checkout))
    }

    /// The shop's codes changed: a code this cart applied that the admin expired leaves it, and
    /// every tab shows the total without it.
    public func discountsChanged() {
        _ = try? store.send(.discountsChanged)
    }

    /// The code to check out with: the applied one, if it is still valid now.
    public var validDiscount: DiscountCode? {
        discounts.valid(store.state.discount, at: now())
    }

    /// What a session saves.
    public var latestState: CartState { store.state }
    /// How many times the state has changed (`Store.revision`): what a page drawn from it is
    /// remembered by.
    public var stateRevision: UInt64 { store.revision }

    public var currentOutput: CartOutput { output.output(for: store.state) }

    /// The current output, then every distinct change, to a callback: `outputs()` as Combine's
    /// `sink`, serial, in order and conflated, with no task waiting between changes.
    public func sinkOutputs(_ receive: @escaping @Sendable (CartOutput) -> Void) -> BroadcastSubscription {
        store.sink { [output] state in receive(output.output(for: state)) }
    }

    public func outputs() -> SharedOutput<CartState, CartOutput>.Outputs { output.outputs(of: store.states()) }

    public func close() {
        store.close()
    }
}
