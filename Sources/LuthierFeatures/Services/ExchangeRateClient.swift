import LuthierDomain

/// Where exchange rates come from: the embedded defaults, or an upstream provider behind a cache.
public struct ExchangeRateClient: Sendable {
    /// The rate for one currency (units per US dollar). Throws when it cannot be had; the caller
    /// keeps showing the last currency it has prices for.
    public var rate: @Sendable (_ currency: Currency) async throws -> ExchangeRate

    public init(rate: @escaping @Sendable (_ currency: Currency) async throws -> ExchangeRate) {
        self.rate = rate
    }
}

extension ExchangeRateClient {
    /// Rates whose every fetch throws `WorkshopClient.Unimplemented`, told to `report` first.
    public static func failing(reporting report: @escaping UnexpectedCallReport = { _ in }) -> ExchangeRateClient {
        ExchangeRateClient { _ in throw unexpected("ExchangeRateClient.rate", report) }
    }
}
