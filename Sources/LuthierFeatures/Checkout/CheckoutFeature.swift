import LuthierDomain

/// The checkout screen's logic: shipping, currency and ordering for one `Checkout`, as a reducer.
///
/// Read it the way the seeds write the screen:
/// - the currency is `debounce → removeDuplicates → flatMapLatest(fetch rate)`: a choice shows at
///   once in the picker; `currencySettled` comes 500 ms after the last of a quick succession
///   (`debounce`), is dropped when it is what the prices are already in (`removeDuplicates`
///   against what is shown, so a currency whose fetch failed is fetched again when chosen again),
///   and starts a rate request that replaces any still in flight (`flatMapLatest`);
/// - ordering is one request to the workshop whose answer comes back as an action;
/// - the state is the fold (`scan`) of every action; the output is `CheckoutOutput(state:)`.
public struct CheckoutFeature: Reducer {
    public typealias State = CheckoutState

    public enum Action: Hashable, Sendable, Codable {
        /// Inputs (form posts).
        case shippingChosen(ShippingMethod)
        case currencyChosen(Currency)
        case orderTapped
        /// Results coming back.
        case currencySettled(Currency)
        case rateArrived(ExchangeRate)
        case rateFailed(Currency)
        case orderPlaced(Order)
        case orderFailed(OrderFailure)
        /// The workshop's stock changed (a restock, a correction, a cancelled order): whether the
        /// guitars can be built is asked again.
        case stockChanged
        /// Each line's availability as the workshop answered after a stock change, in line order.
        case availabilityChecked([Availability])
    }

    public enum OrderFailure: Error, Hashable, Sendable, Codable {
        case notOrderable(String)
        case refused(String, missing: [String])
        /// The workshop could not take the order right now (its store failed: locked, full, gone);
        /// nothing was ordered, and the same order may be placed again.
        case unavailable(String)

        public var message: String {
            switch self {
            case .notOrderable(let message), .refused(let message, _), .unavailable(let message): message
            }
        }
    }

    /// What the customer reads when the workshop could not take the order.
    public static let unavailableMessage =
        "Your order could not be placed right now; nothing was charged. Please try again."

    public static let currencyDebounce = Duration.milliseconds(500)
    static let currencyDebounceID = EffectID("checkout.currency.debounce")
    static let rateRequestID = EffectID("checkout.currency.rate")
    /// The order in flight, whose answer a second tap (another tab) awaits too.
    static let orderID = EffectID("checkout.order")
    /// The availability asked after a stock change: a newer change replaces it (`flatMapLatest`).
    static let availabilityID = EffectID("checkout.availability")

    let environment: LuthierEnvironment
    /// The session's anonymous key, which its orders carry.
    let sessionKey: String

    public init(environment: LuthierEnvironment, sessionKey: String) {
        self.environment = environment
        self.sessionKey = sessionKey
    }

    public func reduce(into state: inout CheckoutState, action: Action) -> Effect<Action> {
        switch action {
        case .shippingChosen(let method):
            guard state.order == nil else { return .none }
            state.shipping = method
            return .none

        case .currencyChosen(let currency):
            guard state.order == nil else { return .none }
            state.selectedCurrency = currency
            state.notice = nil
            return .send(.currencySettled(currency))
                .debounce(id: Self.currencyDebounceID, for: Self.currencyDebounce, clock: environment.clock)

        case .currencySettled(let currency):
            guard currency == state.selectedCurrency, currency != state.shownRate.currency, state.order == nil else {
                return .none
            }
            guard currency != .usd else {
                state.shownRate = .dollar()
                state.isLoadingRate = false
                return .cancel(id: Self.rateRequestID)
            }
            state.isLoadingRate = true
            let rates = environment.exchangeRates
            return .run { send in
                do {
                    send(.rateArrived(try await rates.rate(currency)))
                } catch {
                    send(.rateFailed(currency))
                }
            }
            .cancellable(id: Self.rateRequestID)

        case .rateArrived(let rate):
            state.isLoadingRate = false
            if rate.currency == state.selectedCurrency { state.shownRate = rate }
            return .none

        case .rateFailed(let currency):
            state.isLoadingRate = false
            state.notice = .rateUnavailable(currency, showing: state.shownRate.currency)
            if state.selectedCurrency == currency { state.selectedCurrency = state.shownRate.currency }
            return .none

        case .orderTapped:
            // Not orderable (a wood out, prices loading) is answered to the one who asked
            // (`CheckoutViewModel.placeOrder` throws); the page already says why.
            guard state.order == nil, !state.isOrdering, state.whyNotOrderable == nil else { return .none }
            state.isOrdering = true
            state.notice = nil
            let request = OrderRequest(
                checkoutID: state.checkout.id,
                lines: state.checkout.cartLines,
                shipping: state.shippingOption,
                rate: state.shownRate,
                discount: state.checkout.discount,
                sessionKey: sessionKey
            )
            let workshop = environment.workshop
            return .run { send in
                do {
                    send(.orderPlaced(try await workshop.placeOrder(request)))
                } catch let error as OrderError {
                    switch error {
                    case .unavailable(let missing): send(.orderFailed(.refused(error.message, missing: missing)))
                    }
                } catch {
                    send(.orderFailed(.unavailable(Self.unavailableMessage)))
                }
            }
            .named(Self.orderID)

        case .orderPlaced(let order):
            state.isOrdering = false
            state.order = order
            return .none

        case .orderFailed(let failure):
            state.isOrdering = false
            if case .refused(_, let missing) = failure { state.availability = .unavailable(missing: missing) }
            state.notice = .orderFailed(failure)
            return .none

        case .stockChanged:
            guard state.order == nil else { return .none }
            let workshop = environment.workshop
            let lines = state.checkout.cartLines
            // A failed question changes nothing: the page keeps what it showed, and ordering still
            // judges the stock in its own transaction.
            return .run { send in
                guard let answers = try? await workshop.availability(lines) else { return }
                send(.availabilityChecked(answers))
            }
            .cancellable(id: Self.availabilityID)

        case .availabilityChecked(let answers):
            guard state.order == nil, answers.count == state.checkout.lines.count else { return .none }
            for index in answers.indices { state.checkout.lines[index].availability = answers[index] }
            state.availability = state.checkout.availability
            // The refusal the customer read is stale once the woods are back.
            if state.availability.isAvailable, case .orderFailed(.refused) = state.notice { state.notice = nil }
            return .none
        }
    }
}
