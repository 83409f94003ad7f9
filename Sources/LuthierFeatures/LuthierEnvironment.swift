import Foundation

/// Every effect the features (and the sessions that hold them) need, passed in rather than
/// reached for.
///
/// The live values are wired in exactly one place (`LiveSystem` in LuthierLive); tests build one
/// with a test clock and fakes that fail on calls they did not expect.
@dynamicMemberLookup
public struct LuthierEnvironment: Sendable {
    /// The shop's effects, the same for every session; read and changed as the environment's own
    /// properties (`environment.workshop`, `environment.clock = …`).
    public struct Effects: Sendable {
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
    }

    /// The effects behind one reference, shared by every copy of the environment. Each session
    /// holds the environment in several places (its builder's store and view model, a checkout's
    /// store) for as long as it lives; inline, the effects would cost each of those 400 bytes and
    /// a retain of every closure. Immutable: a change makes a new one (tests and the wiring
    /// change the environment, a session never does).
    private final class SharedEffects: Sendable {
        let effects: Effects

        init(_ effects: Effects) {
            self.effects = effects
        }
    }

    private var shared: SharedEffects

    /// Where the features' stores record what they do (a session's own recorder, set by its
    /// `ShopSession`; the shop's for the kiosk and the floor); nil records nothing. Inline, as
    /// each session sets its own.
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
        shared = SharedEffects(
            Effects(
                clock: clock, now: now, workshop: workshop, exchangeRates: exchangeRates, sessions: sessions,
                analytics: analytics, makeID: makeID))
        self.taps = taps
    }

    public subscript<Value>(dynamicMember effect: WritableKeyPath<Effects, Value>) -> Value {
        get { shared.effects[keyPath: effect] }
        set {
            var effects = shared.effects
            effects[keyPath: effect] = newValue
            shared = SharedEffects(effects)
        }
    }
}
