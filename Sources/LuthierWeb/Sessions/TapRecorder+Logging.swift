import Logging
import LuthierFeatures

extension TapRecorder {
    /// With `LOG_LEVEL=trace`, every tap event as a log line, as Combine's `print` writes it
    /// ("checkout.input: receive value: (currencyChosen(EUR))"); nil otherwise, so that recording
    /// stays off until someone inspects. Events name actions and outputs, never a cookie, a
    /// session id, an order's key or a token (`Order` describes itself without its keys).
    static func traceLog(to logger: Logger) -> (@Sendable (TapEvent) -> Void)? {
        guard logger.logLevel <= .trace else { return nil }
        return { event in logger.trace("\(event.printed)") }
    }
}

extension TapRecorder {
    /// The shop's recorder (the kiosk feed, the workshop floor, the rates), as configured.
    public static func shop(
        configuration: LuthierConfiguration, clock: any Clock<Duration>, logger: Logger
    ) -> TapRecorder {
        TapRecorder(capacity: configuration.shopTapEvents, clock: clock, log: traceLog(to: logger))
    }
}
