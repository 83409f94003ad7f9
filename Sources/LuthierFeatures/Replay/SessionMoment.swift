import Foundation
import LuthierDomain

/// A session as it was right after one step of its trace: each screen's state then, and the
/// combined output its pages were drawn from. The inspector's scrubber shows it.
///
/// A store's state at that moment is the state after its last step up to then, or, when its first
/// recorded step comes later, the state before that step (nothing changed it in between). A store
/// that took no step in the whole recording is as it is now. The checkout is the one the builder
/// held then, if any.
public struct SessionMoment: Sendable {
    public let step: TraceStep
    public let build: BuildState
    public let cart: CartState
    public let checkout: CheckoutState?

    /// - Parameters:
    ///   - number: the step's number (`TraceStep.number`).
    ///   - steps: the recording, oldest first.
    ///   - current: the session's states now, for a store that took no step in `steps`.
    /// - Returns: nil when no step of `steps` has that number.
    public init?(
        after number: Int, in steps: [TraceStep],
        current: (build: BuildState, cart: CartState, checkout: CheckoutState?)
    ) {
        guard let step = steps.first(where: { $0.number == number }) else { return nil }
        self.step = step
        let build = Self.state(of: BuildFeature.traceName, at: number, in: steps) as BuildState? ?? current.build
        self.build = build
        cart = Self.state(of: CartFeature.traceName, at: number, in: steps) ?? current.cart
        guard let id = build.checkout?.id else {
            checkout = nil
            return
        }
        let instances = Set(
            steps.filter { $0.store == CheckoutFeature.traceName && ($0.before as? CheckoutState)?.checkout.id == id }
                .map(\.instance))
        if let instance = instances.max() {
            checkout = Self.state(of: CheckoutFeature.traceName, instance: instance, at: number, in: steps)
        } else {
            checkout = current.checkout?.checkout.id == id ? current.checkout : nil
        }
    }

    /// The combined output the session's pages showed then.
    public var output: SessionOutput {
        SessionOutput(
            build: BuildOutput(state: build),
            cart: CartOutput(cart: cart.cart, discount: cart.discount.flatMap { $0.isValid(at: step.date) ? $0 : nil }),
            checkout: checkout.map(CheckoutOutput.init(state:)))
    }

    /// The state of the newest store named `name` (or its instance `instance`) right after step `number`.
    private static func state<State>(of name: String, instance: Int? = nil, at number: Int, in steps: [TraceStep])
        -> State?
    {
        let own = steps.filter { $0.store == name && (instance == nil || $0.instance == instance) }
        guard let newest = own.map(\.instance).max() else { return nil }
        let mine = own.filter { $0.instance == (instance ?? newest) }
        if let last = mine.last(where: { $0.number <= number }) {
            return (last.after ?? last.before) as? State
        }
        return mine.first.map(\.before) as? State
    }
}
