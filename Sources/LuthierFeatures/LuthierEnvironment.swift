/// Every effect the features need, passed in rather than reached for.
///
/// The live values are wired in exactly one place (`LuthierEnvironment.live` in LuthierLive);
/// tests build one with a test clock and fakes that fail on calls they did not expect.
public struct LuthierEnvironment: Sendable {
    /// Drives every timer, debounce and timeout, so tests can move time by hand.
    public var clock: any Clock<Duration>

    public init(clock: any Clock<Duration>) {
        self.clock = clock
    }
}
