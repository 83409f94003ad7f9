import LuthierDomain

/// The builder screen's logic: the guitar the customer configures, and the checkout it leads to.
///
/// The state is the fold (`scan`) of every action through the pure `BuildState.reduce`; the one
/// effect is the checkout: the workshop's three answers (availability, estimate, shipping
/// options), asked at once and awaited together (`zip`), come back as one action. A request while
/// one is loading asks nothing: it joins the one in flight.
public struct BuildFeature: Reducer {
    public typealias State = BuildState
    public typealias Action = BuildAction

    /// What the customer reads when a checkout could not be made.
    public static let unreachableMessage = "The workshop could not be reached; please try again."

    /// The checkout in flight, which a request made meanwhile joins.
    static let checkoutID = EffectID("build.checkout")

    let environment: LuthierEnvironment

    public init(environment: LuthierEnvironment) {
        self.environment = environment
    }

    public func reduce(into state: inout BuildState, action: BuildAction) -> Effect<BuildAction> {
        let wasLoading = state.checkoutPhase == .loading
        state = BuildState.reduce(state, action)
        guard case .checkoutRequested(let request) = action, !wasLoading else { return .none }
        let environment = environment
        return .run { send in send(await Self.checkout(request, environment: environment)) }
            .named(Self.checkoutID)
    }

    /// The workshop's three answers about `request`, zipped into one checkout (or its failure).
    static func checkout(_ request: CheckoutRequest, environment: LuthierEnvironment) async -> BuildAction {
        let workshop = environment.workshop
        do {
            let answers = try await workshop.answers(for: request.lines)
            guard answers.availability.count == request.lines.count else {
                return .checkoutFailed(unreachableMessage)
            }
            return .checkoutFinished(
                Checkout(
                    id: environment.makeID(),
                    source: request.source,
                    lines: zip(request.lines, answers.availability).map { line, availability in
                        CheckoutLine(guitar: line.guitar, quantity: line.quantity, availability: availability)
                    },
                    estimate: answers.estimate,
                    shippingOptions: answers.shippingOptions,
                    discount: request.discount
                ))
        } catch {
            return .checkoutFailed(unreachableMessage)
        }
    }
}
