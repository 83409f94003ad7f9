import AsyncHTTPClient
import Foundation
import Logging
import LuthierDomain
import LuthierFeatures

/// Exchange rates from an upstream JSON provider, shared by every session behind one cache.
///
/// Why it is shaped this way:
/// - one document brings every currency, so one fetch serves EUR, GBP and ILS alike;
/// - answers stay fresh for `timeToLive` on the injected clock, so the provider is asked rarely;
/// - single flight: however many sessions ask while a fetch is under way, they all wait for that one
///   fetch (a thousand concurrent asks for EUR make one upstream request);
/// - every fetch is bounded twice: by a race against the injected clock (so tests move time by hand)
///   and by the HTTP client's own deadline (so a stuck socket is torn down for real);
/// - the last good rate of each currency is kept, with its old `asOf`, when the provider later fails,
///   so the page can say "rates as of …" instead of going blank; with no good rate ever, asking throws
///   `ExchangeRateError.unavailable`.
/// After a failed fetch the provider is left alone for `retryAfterFailure`, so a dead provider does
/// not make every page wait for the timeout.
public actor HTTPExchangeRateProvider {
    /// Answers bigger than this are refused unread: a rates document is a few hundred bytes.
    public static let maximumBodyBytes = 64 * 1024

    private let url: URL
    private let httpClient: HTTPClient
    private let timeout: Duration
    private let timeToLive: Duration
    private let retryAfterFailure: Duration
    private let now: @Sendable () -> Date
    private let logger: Logger
    /// Time on the injected clock since this provider was made.
    private let elapsed: @Sendable () -> Duration
    private let sleep: @Sendable (Duration) async throws -> Void
    /// Where the provider tells the shop's inspector what it does: `rates.cache` (an ask answered
    /// from the cache), `rates.join` (an ask that joined the fetch in flight: single flight) and
    /// `rates.fetch` (each upstream fetch: its start, its answer or its failure). Never the URL,
    /// which may carry a key.
    private let tap: Tap?

    /// The last good rate of each currency, whichever fetch brought it.
    private var lastGood: [Currency: ExchangeRate] = [:]
    /// How the last finished fetch went, and when (on the injected clock).
    private var lastFetch: (at: Duration, outcome: Outcome)?
    private var fetchInFlight: Task<Void, Never>?
    /// Callers waiting for the fetch in flight; tests read it to know every ask has joined.
    private(set) var waitingForFetch = 0

    private enum Outcome {
        /// The document was good; these shop currencies were missing or unusable in it, and why.
        case succeeded(unusable: [Currency: String])
        case failed(reason: String)
    }

    /// - Parameters:
    ///   - url: The provider's rates document, e.g. `https://rates.example/latest?base=USD`.
    ///   - httpClient: Owned by the caller, who shuts it down.
    ///   - clock: Measures the time-to-live and races each fetch against `timeout`.
    ///   - timeout: The longest a fetch may take, on `clock` and as the HTTP request's deadline.
    ///   - timeToLive: How long a good answer is used without asking again.
    ///   - retryAfterFailure: How long a failed fetch is remembered before the provider is asked again.
    ///   - now: The wall-clock time a fetch counts as of, when the document carries no date.
    ///   - tap: where to record the cache, the single flight and the fetches (the shop's recorder).
    public init(
        url: URL,
        httpClient: HTTPClient,
        clock: any Clock<Duration>,
        timeout: Duration = .seconds(3),
        timeToLive: Duration = .seconds(600),
        retryAfterFailure: Duration = .seconds(30),
        now: @escaping @Sendable () -> Date = Date.init,
        logger: Logger,
        tap: Tap? = nil
    ) {
        self.url = url
        self.httpClient = httpClient
        self.timeout = timeout
        self.timeToLive = timeToLive
        self.retryAfterFailure = retryAfterFailure
        self.now = now
        self.logger = logger
        self.elapsed = stopwatch(on: clock)
        self.sleep = { duration in try await clock.sleep(for: duration) }
        self.tap = tap
    }

    /// The rate of `currency` per US dollar: cached, fetched once for everyone, or the last good one.
    ///
    /// US dollars never need the provider. Throws `ExchangeRateError.unavailable` only when no good
    /// rate for `currency` has ever been had.
    public func rate(for currency: Currency) async throws(ExchangeRateError) -> ExchangeRate {
        if currency == .usd { return .dollar(asOf: now()) }
        if isLastFetchCurrent {
            tap?.record("cache", .value, "\(currency.code): \(lastGood[currency] == nil ? "none kept" : "cached")")
        } else {
            await fetchOnce(for: currency)
        }
        if let rate = lastGood[currency] { return rate }
        throw .unavailable(currency: currency, reason: reasonMissing(currency))
    }

    private var isLastFetchCurrent: Bool {
        guard let lastFetch else { return false }
        let age = elapsed() - lastFetch.at
        switch lastFetch.outcome {
        case .succeeded: return age < timeToLive
        case .failed: return age < retryAfterFailure
        }
    }

    private func reasonMissing(_ currency: Currency) -> String {
        switch lastFetch?.outcome {
        case .succeeded(let unusable): unusable[currency] ?? "the provider did not quote \(currency.code)"
        case .failed(let reason): reason
        case nil: "the rates have not been fetched"
        }
    }

    /// Joins the fetch in flight, or starts one that every later caller joins until it ends.
    private func fetchOnce(for currency: Currency) async {
        let fetch: Task<Void, Never>
        if let fetchInFlight {
            fetch = fetchInFlight
            tap?.record("join", .value, "\(currency.code) joins the fetch in flight (\(waitingForFetch + 1) waiting)")
        } else {
            tap?.record("fetch", .subscription, "for \(currency.code)")
            // Unstructured on purpose: one caller giving up must not cancel the others' fetch.
            fetch = Task { await self.fetchAndRemember() }
            fetchInFlight = fetch
        }
        waitingForFetch += 1
        await fetch.value
        waitingForFetch -= 1
    }

    private func fetchAndRemember() async {
        let outcome: Outcome
        do {
            let response = try await fetchWithTimeout()
            let asOf = response.asOf ?? now()
            for (currency, perDollar) in response.perDollar {
                lastGood[currency] = ExchangeRate(currency: currency, perDollar: perDollar, asOf: asOf)
            }
            for (currency, reason) in response.unusable.sorted(by: { $0.key.code < $1.key.code }) {
                logger.warning(
                    "exchange rate unusable", metadata: ["currency": "\(currency.code)", "reason": "\(reason)"])
            }
            logger.debug("exchange rates fetched", metadata: ["asOf": "\(asOf)", "url": "\(url)"])
            tap?.record("fetch", .value, "\(response.perDollar.count) currencies")
            outcome = .succeeded(unusable: response.unusable)
        } catch {
            let reason = String(describing: error)
            logger.warning("exchange rate fetch failed", metadata: ["reason": "\(reason)", "url": "\(url)"])
            tap?.record("fetch", .failure, reason)
            outcome = .failed(reason: reason)
        }
        lastFetch = (elapsed(), outcome)
        fetchInFlight = nil
    }

    /// One fetch, raced against `timeout` on the injected clock; the loser is cancelled.
    private func fetchWithTimeout() async throws -> RatesResponse {
        let url = url
        let httpClient = httpClient
        let timeout = timeout
        let sleep = sleep
        return try await withThrowingTaskGroup(of: RatesResponse.self) { group in
            group.addTask { try await Self.download(url, with: httpClient, timeout: timeout) }
            group.addTask {
                try await sleep(timeout)
                throw FetchFailure.timedOut(timeout)
            }
            defer { group.cancelAll() }
            guard let first = try await group.next() else { throw FetchFailure.timedOut(timeout) }
            return first
        }
    }

    private static func download(_ url: URL, with httpClient: HTTPClient, timeout: Duration) async throws
        -> RatesResponse
    {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        let response: HTTPClientResponse
        do {
            response = try await httpClient.execute(request, timeout: .init(timeout))
        } catch {
            throw FetchFailure.unreachable(String(describing: error))
        }
        guard response.status.code == 200 else { throw FetchFailure.status(Int(response.status.code)) }
        let body: Data
        do throws(HTTPClientResponse.BodyFailure) {
            body = try await response.wholeBody(upTo: maximumBodyBytes)
        } catch {
            switch error {
            case .tooLarge: throw FetchFailure.tooLarge
            case .unreadable(let error): throw FetchFailure.unreachable(String(describing: error))
            }
        }
        return try RatesResponse.decode(body)
    }

    /// Why one fetch failed, worded for the logs.
    private enum FetchFailure: Error, CustomStringConvertible {
        case timedOut(Duration)
        case unreachable(String)
        case status(Int)
        case tooLarge

        var description: String {
            switch self {
            case .timedOut(let timeout): "the provider did not answer within \(timeout)"
            case .unreachable(let error): "the provider could not be read: \(error)"
            case .status(let code): "the provider answered HTTP \(code)"
            case .tooLarge: "the provider's answer is over \(maximumBodyBytes / 1024) KiB"
            }
        }
    }
}
