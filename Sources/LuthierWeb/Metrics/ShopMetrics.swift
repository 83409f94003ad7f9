import CoreMetrics
import Foundation
import HTTPTypes
import LuthierDomain
import Metrics
import NIOCore
import Prometheus
import ServerMachinery
import Synchronization

/// The server's metrics, written in Prometheus's text format for `GET /metrics`.
///
/// The metrics are swift-metrics' types over swift-prometheus, each made with this object's
/// factory: no global `MetricsSystem.bootstrap`, so every server (and every test's server) counts
/// into its own registry, and a test can read exactly what its own requests moved.
public final class ShopMetrics: Sendable {
    /// What the server is holding at the moment of a scrape, read from its parts then (a gauge
    /// kept up to date on every change would cost every change a write for a value read a few
    /// times a minute).
    struct Readings: Sendable {
        var connections: Int
        var streams: Int
        var kioskStreams: Int
        var sessions: Int
        /// Open streams by what they follow.
        var streamsByKind: [EventStreamHub.Kind: Int] = [:]
        /// Orders in the workshop, by stage.
        var ordersInProgress: [OrderStatus: Int] = [:]
        /// Streams that skipped versions because their reader was slower than the changes.
        var conflatedPatches = 0
        /// The wall-clock time of the scrape (the age of the exchange rates is counted to it).
        var now = Date()
        /// Totals the server keeps anyway, read as counters.
        var sessionsRestored = 0
        var readersCutOff = 0
        /// Requests the shop failed (`IncidentLog`), each repeat too.
        var incidents = 0
        /// `503`s since the start, by cause.
        var unavailable: [String: Int] = [:]
    }

    /// The requests' latency buckets: a page is answered in about a millisecond, a checkout in
    /// tens when its store's write waits for the disk, and anything past a second is a fault.
    static let durationBuckets: [Duration] = [
        .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
        .milliseconds(500), .seconds(1), .seconds(2.5),
    ]

    private let registry: PrometheusCollectorRegistry
    private let factory: PrometheusMetricsFactory

    /// A request's series: its route's pattern (the router's few), its method (the standard ones,
    /// any other as `OTHER`, so that a client inventing methods cannot make series without end)
    /// and its status.
    private struct RequestSeries: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// Each series' counter and timer, made once: making them looks them up in the registry under
    /// its lock, by name and labels, which cost every request about a twentieth of a page's rate.
    private let requestSeries = Mutex<[RequestSeries: (requests: CoreMetrics.Counter, duration: CoreMetrics.Timer)]>([:]
    )

    /// The methods counted by name.
    static let namedMethods: Set<HTTPRequest.Method> = [
        .get, .head, .post, .put, .delete, .connect, .options, .trace, .patch,
    ]

    private let ordersPlaced: CoreMetrics.Counter
    private let guitarsOrdered: CoreMetrics.Counter
    /// Each store operation's timer and failure counter, made once.
    private let storeSeries = Mutex<[String: (duration: CoreMetrics.Timer, failures: CoreMetrics.Counter)]>([:])
    /// Each currency's rate requests that were answered and that failed, and the `asOf` of the
    /// rate last served.
    private let rates = Mutex<[Currency: (served: Int, failed: Int, asOf: Date?)]>([:])
    /// The time from a post accepted to its patch written to each stream following the session.
    private let patchLatency: CoreMetrics.Timer

    /// Times a write to the store found another connection holding the write lock, as the store
    /// counts them.
    private let storeLockWaits: @Sendable () -> Int

    public init(storeLockWaits: @escaping @Sendable () -> Int = { 0 }) {
        self.storeLockWaits = storeLockWaits
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.registry = registry
        self.factory = factory
        ordersPlaced = CoreMetrics.Counter(label: "luthier_orders_placed_total", factory: factory)
        guitarsOrdered = CoreMetrics.Counter(label: "luthier_guitars_ordered_total", factory: factory)
        patchLatency = CoreMetrics.Timer(label: "luthier_patch_latency_seconds", factory: factory)
    }

    /// Records a write to the store: its time, and whether it failed.
    func storeWrite(_ operation: String, after duration: Duration, failed: Bool) {
        let series = storeSeries.withLock { made in
            if let series = made[operation] { return series }
            let series = (
                duration: CoreMetrics.Timer(
                    label: "luthier_store_write_duration_seconds", dimensions: [("operation", operation)],
                    factory: factory),
                failures: CoreMetrics.Counter(
                    label: "luthier_store_failures_total", dimensions: [("operation", operation)], factory: factory)
            )
            made[operation] = series
            return series
        }
        series.duration.record(duration: duration)
        if failed { series.failures.increment() }
    }

    /// A rate the checkout was given (from the provider's cache or fetched upstream).
    func rateServed(_ rate: ExchangeRate) {
        rates.withLock { rates in
            var counts = rates[rate.currency] ?? (0, 0, nil)
            counts.served += 1
            counts.asOf = rate.asOf
            rates[rate.currency] = counts
        }
    }

    /// A rate request that failed.
    func rateFailed(_ currency: Currency) {
        rates.withLock { rates in rates[currency, default: (0, 0, nil)].failed += 1 }
    }

    /// A patch written to a stream, `duration` after the post it shows was accepted.
    func patchWritten(after duration: Duration) {
        patchLatency.record(duration: duration)
    }

    /// Counts an order the workshop took (not a repeated post of one already placed).
    func orderPlaced(guitars: Int) {
        ordersPlaced.increment()
        guitarsOrdered.increment(by: guitars)
    }

    /// Counts one answered request under its route's pattern (never its path: a path carries order
    /// numbers and keys, and every distinct path would be a new series).
    func requestAnswered(route: String, method: HTTPRequest.Method, status: Int, after duration: Duration) {
        let series = RequestSeries(
            route: route, method: Self.namedMethods.contains(method) ? method.rawValue : "OTHER", status: status)
        let metrics = requestSeries.withLock { made in
            if let metrics = made[series] { return metrics }
            let metrics = (
                requests: CoreMetrics.Counter(
                    label: "luthier_http_requests_total",
                    dimensions: [("route", route), ("method", series.method), ("status", String(status))],
                    factory: factory),
                duration: CoreMetrics.Timer(
                    label: "luthier_http_request_duration_seconds",
                    dimensions: [("route", route), ("method", series.method)], factory: factory)
            )
            made[series] = metrics
            return metrics
        }
        metrics.requests.increment()
        metrics.duration.record(duration: duration)
    }

    /// Every metric in Prometheus's text format (version 0.0.4), with the gauges set to `readings`.
    func exposition(_ readings: Readings) -> ByteBuffer {
        gauge("luthier_open_connections", readings.connections)
        for kind in EventStreamHub.Kind.allCases {
            gauge("luthier_open_event_streams", readings.streamsByKind[kind] ?? 0, ("kind", kind.metricLabel))
        }
        gauge("luthier_live_sessions", readings.sessions)
        for stage in OrderStatus.allCases where !stage.isFinished {
            gauge("luthier_orders_in_progress", readings.ordersInProgress[stage] ?? 0, ("stage", stage.rawValue))
        }
        let rates = rates.withLock { $0 }
        for (currency, counts) in rates {
            if let asOf = counts.asOf {
                let age = max(0, Int(readings.now.timeIntervalSince(asOf).rounded()))
                gauge("luthier_exchange_rate_age_seconds", age, ("currency", currency.code))
            }
        }
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        var text = ""
        Self.counter("luthier_sessions_restored_total", [("", readings.sessionsRestored)], into: &text)
        Self.counter("luthier_readers_cut_off_total", [("", readings.readersCutOff)], into: &text)
        Self.counter("luthier_incidents_total", [("", readings.incidents)], into: &text)
        Self.counter(
            "luthier_unavailable_total", readings.unavailable.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            label: "cause", into: &text)
        Self.counter("luthier_store_lock_waits_total", [("", storeLockWaits())], into: &text)
        Self.counter("luthier_conflated_patches_total", [("", readings.conflatedPatches)], into: &text)
        let byCurrency = rates.sorted { $0.key.code < $1.key.code }
        text += "# TYPE luthier_exchange_rate_requests_total counter\n"
        for (currency, counts) in byCurrency {
            text +=
                "luthier_exchange_rate_requests_total{currency=\"\(currency.code)\",result=\"served\"} \(counts.served)\n"
            text +=
                "luthier_exchange_rate_requests_total{currency=\"\(currency.code)\",result=\"failed\"} \(counts.failed)\n"
        }
        bytes += Array(text.utf8)
        return ByteBuffer(bytes: bytes)
    }

    /// A counter whose total the server keeps itself, in the text format: one sample per label
    /// value (`""` for a counter without labels).
    private static func counter(
        _ name: String, _ samples: [(String, Int)], label: String = "", into text: inout String
    ) {
        text += "# TYPE \(name) counter\n"
        for (value, count) in samples {
            text += value.isEmpty ? "\(name) \(count)\n" : "\(name){\(label)=\"\(value)\"} \(count)\n"
        }
    }

    private func gauge(_ name: String, _ value: Int, _ dimension: (String, String)? = nil) {
        CoreMetrics.Gauge(label: name, dimensions: dimension.map { [$0] } ?? [], factory: factory).record(value)
    }
}
