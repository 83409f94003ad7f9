/// Every effect the features need, passed in rather than reached for.
///
/// The live values are wired in exactly one place (`LuthierEnvironment.live` in LuthierLive);
/// tests build one with a test clock and fakes that fail on calls they did not expect.
public struct LuthierEnvironment: Sendable {
    /// Drives every timer, debounce and timeout, so tests can move time by hand.
    public var clock: any Clock<Duration>
    public var workshop: WorkshopClient
    public var exchangeRates: ExchangeRateClient
    /// Makes checkout ids; random in production, predictable in tests.
    public var makeID: @Sendable () -> String

    public init(
        clock: any Clock<Duration>,
        workshop: WorkshopClient,
        exchangeRates: ExchangeRateClient,
        makeID: @escaping @Sendable () -> String
    ) {
        self.clock = clock
        self.workshop = workshop
        self.exchangeRates = exchangeRates
        self.makeID = makeID
    }
}
