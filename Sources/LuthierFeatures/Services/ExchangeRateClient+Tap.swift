import LuthierDomain

extension ExchangeRateClient {
    /// This client with every request and its answer tapped on `lane` of `recorder`: a request
    /// is a subscription (the currency), its rate a value, a failure a failure. The shop's
    /// inspector shows the provider's traffic, shared by every session's checkout.
    public func tapped(_ lane: String, into recorder: TapRecorder) -> ExchangeRateClient {
        let rate = rate
        return ExchangeRateClient { currency in
            recorder.record(lane, .subscription, currency.code)
            do {
                let answer = try await rate(currency)
                recorder.record(lane, .value, "\(currency.code) \(answer.perDollar) per dollar")
                return answer
            } catch {
                recorder.record(lane, .failure, "\(currency.code): \(error)")
                throw error
            }
        }
    }
}
