import Foundation

/// Every effect the features (and the sessions that hold them) need, passed in rather than
/// reached for.
///
/// The live values are wired in exactly one place (`LiveSystem` in LuthierLive); tests build one
/// with a test clock and fakes that fail on calls they did not expect.
public struct LuthierEnvironment: Sendable {
    /// Drives every timer, debounce and timeout, so tests can move time by hand.
    public var clock: any Clock<Duration>
    /// Wall-clock time, for what is dated: discount expiry, analytics, session expiry.
    public var now: @Sendable () -> Date
    public var workshop: WorkshopClient
    public var exchangeRates: ExchangeRateClient
    /// Where sessions are kept across restarts.
    public var sessions: SessionStore
    /// Where cart actions are logged for the shop's analytics.
    public var analytics: AnalyticsClient
    /// Makes checkout ids; random in production, predictable in tests.
    public var makeID: @Sendable () -> String
    /// Where the features' stores record what they do (a session's own recorder, set by its
    /// `ShopSession`; the shop's for the kiosk and the floor); nil records nothing.
    public var taps: TapRecorder?

    public init(
        clock: any Clock<Duration>,
        now: @escaping @Sendable () -> Date,
        workshop: WorkshopClient,
        exchangeRates: ExchangeRateClient,
        sessions: SessionStore,
        analytics: AnalyticsClient,
        makeID: @escaping @Sendable () -> String,
        taps: TapRecorder? = nil
    ) {
        self.clock = clock
        self.now = now
        self.workshop = workshop
        self.exchangeRates = exchangeRates
        self.sessions = sessions
        self.analytics = analytics
        self.makeID = makeID
        self.taps = taps
    }
}
