import AsyncAlgorithms
import LuthierDomain
import Synchronization

/// The checkout screen: shipping, currency and ordering for one `Checkout`.
///
/// Inputs: `selectShipping`, `selectCurrency`, `placeOrder`. Output: `CheckoutOutput`, published
/// to every reader like the builder's. Currency choices go through a stream that `run()` debounces
/// by 500 ms on the injected clock, so three quick clicks fetch one rate, and a choice equal to the
/// currency already shown fetches nothing. Until the rate arrives the page shows placeholders and
/// cannot order; if it never does, the picker goes back to the currency the prices are in.
public actor CheckoutViewModel {
    public static let currencyDebounce = Duration.milliseconds(500)

    public enum OrderFailure: Error, Equatable, Sendable {
        case notOrderable(String)
        case refused(String)
        /// The workshop could not take the order right now (its store failed: locked, full, gone);
        /// nothing was ordered, and the same order may be placed again.
        case unavailable(String)
    }

    /// What the customer reads when the workshop could not take the order.
    public static let unavailableMessage =
        "Your order could not be placed right now; nothing was charged. Please try again."

    public nonisolated let checkout: Checkout
    /// Each line's picture, in line order: drawn once, since a checkout's guitars never change (the
    /// outputs, published on every shipping or currency change, leave them out).
    public nonisolated let artworks: [GuitarArtwork]
    private var state: CheckoutState
    private let output: CurrentValueBroadcast<CheckoutOutput>
    private let environment: LuthierEnvironment
    private let sessionKey: String
    private let currencyChoices: AsyncStream<Currency>
    private let currencyInput: AsyncStream<Currency>.Continuation
    private var orderInFlight: Task<Order, any Error>?
    private let latest: Mutex<CheckoutState>

    public init(checkout: Checkout, environment: LuthierEnvironment, sessionKey: String) {
        self.init(state: CheckoutState(checkout: checkout), environment: environment, sessionKey: sessionKey)
    }

    /// The checkout as it was saved. If the customer had picked a currency whose rate had not
    /// arrived yet, it is fetched again once `run()` starts.
    public init(restoring snapshot: CheckoutSnapshot, environment: LuthierEnvironment, sessionKey: String) {
        self.init(state: CheckoutState(snapshot: snapshot), environment: environment, sessionKey: sessionKey)
        if snapshot.selectedCurrency != snapshot.shownRate.currency, snapshot.order == nil {
            currencyInput.yield(snapshot.selectedCurrency)
        }
    }

    private init(state: CheckoutState, environment: LuthierEnvironment, sessionKey: String) {
        checkout = state.checkout
        artworks = state.checkout.lines.map { GuitarArtwork(guitar: $0.guitar) }
        self.environment = environment
        self.sessionKey = sessionKey
        self.state = state
        latest = Mutex(state)
        output = CurrentValueBroadcast(CheckoutOutput(state: state))
        (currencyChoices, currencyInput) = AsyncStream<Currency>.makeStream(bufferingPolicy: .bufferingNewest(8))
    }

    /// The shipping input: the shipping row and the grand total follow at once.
    public func selectShipping(_ method: ShippingMethod) {
        guard state.order == nil else { return }
        state.shipping = method
        publish()
    }

    /// The currency input: the picker shows it at once; the rate is fetched after the debounce.
    public func selectCurrency(_ currency: Currency) {
        guard state.order == nil else { return }
        state.selectedCurrency = currency
        state.notice = nil
        publish()
        currencyInput.yield(currency)
    }

    /// Runs the currency pipeline until the model is closed. The session's driver runs it.
    public func run() async {
        await runCurrencyPipeline(clock: environment.clock)
    }

    private func runCurrencyPipeline<C: Clock<Duration>>(clock: C) async {
        for await currency in currencyChoices.debounce(for: Self.currencyDebounce, clock: clock) {
            await showPrices(in: currency)
        }
    }

    private func showPrices(in currency: Currency) async {
        // Dropping duplicates against what is shown, not against the last choice, means a
        // currency whose fetch failed is fetched again when chosen again.
        guard currency == state.selectedCurrency, currency != state.shownRate.currency else { return }
        guard currency != .usd else {
            state.shownRate = .dollar()
            publish()
            return
        }
        state.isLoadingRate = true
        publish()
        do {
            let rate = try await environment.exchangeRates.rate(currency)
            if state.selectedCurrency == currency, rate.currency == currency {
                state.shownRate = rate
            }
        } catch {
            state.notice =
                "\(currency.code) prices are unavailable right now; showing prices in \(state.shownRate.currency.code)."
            if state.selectedCurrency == currency {
                state.selectedCurrency = state.shownRate.currency
            }
        }
        state.isLoadingRate = false
        publish()
    }

    /// The order input. Placing the same checkout again, or concurrently, yields the one order.
    @discardableResult
    public func placeOrder() async throws -> Order {
        if let order = state.order { return order }
        if let inFlight = orderInFlight {
            do {
                return try await inFlight.value
            } catch {
                throw Self.failure(error)
            }
        }
        guard state.availability.isAvailable else {
            throw OrderFailure.notOrderable(
                checkout.lines.count == 1
                    ? "This model is currently unavailable." : "Some guitars in this order are currently unavailable.")
        }
        guard !state.arePricesPending, !state.isLoadingRate else {
            throw OrderFailure.notOrderable("Prices are still loading; order once they are shown.")
        }
        let request = OrderRequest(
            checkoutID: checkout.id,
            lines: checkout.cartLines,
            shipping: state.shippingOption,
            rate: state.shownRate,
            discount: checkout.discount,
            sessionKey: sessionKey
        )
        let workshop = environment.workshop
        let task = Task { try await workshop.placeOrder(request) }
        orderInFlight = task
        state.isOrdering = true
        state.notice = nil
        publish()
        defer {
            orderInFlight = nil
            state.isOrdering = false
            publish()
        }
        do {
            let order = try await task.value
            state.order = order
            return order
        } catch {
            if case .unavailable(let missing) = error as? OrderError {
                state.availability = .unavailable(missing: missing)
            }
            let failure = Self.failure(error)
            switch failure {
            case .notOrderable(let message), .refused(let message), .unavailable(let message):
                state.notice = message
            }
            throw failure
        }
    }

    /// How a failed order is told: a wood that ran out is a refusal; anything else is the
    /// workshop being unable to take orders right now (the same for a caller that joined the order
    /// in flight as for the one that placed it).
    private static func failure(_ error: any Error) -> OrderFailure {
        if let error = error as? OrderError { return .refused(error.message) }
        return .unavailable(unavailableMessage)
    }

    private func publish() {
        latest.withLock { $0 = state }
        output.send(CheckoutOutput(state: state))
    }

    public var currentState: CheckoutState { state }

    /// The state after the latest input or result, without waiting: what a session saves.
    public nonisolated var latestState: CheckoutState { latest.withLock { $0 } }

    public nonisolated var currentOutput: CheckoutOutput { output.value }

    public nonisolated func outputs() -> AsyncStream<CheckoutOutput> { output.values() }

    /// Ends the outputs and the currency pipeline: the customer left this checkout.
    public nonisolated func close() {
        currencyInput.finish()
        output.finish()
    }
}
