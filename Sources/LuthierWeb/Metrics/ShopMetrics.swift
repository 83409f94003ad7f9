import Metrics
import NIOCore
import Prometheus

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

    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = Self.durationBuckets
        self.registry = registry
        self.factory = factory
    }

    /// Counts one answered request under its route's pattern (never its path: a path carries order
    /// numbers and keys, and every distinct path would be a new series).
    func requestAnswered(route: String, method: String, status: Int, after duration: Duration) {
        Counter(
            label: "luthier_http_requests_total",
            dimensions: [("route", route), ("method", method), ("status", String(status))], factory: factory
        ).increment()
        Timer(
            label: "luthier_http_request_duration_seconds", dimensions: [("route", route), ("method", method)],
            factory: factory
        ).record(duration: duration)
    }

    /// Every metric in Prometheus's text format (version 0.0.4), with the gauges set to `readings`.
    func exposition(_ readings: Readings) -> ByteBuffer {
        gauge("luthier_open_connections", readings.connections)
        gauge("luthier_open_event_streams", readings.streams - readings.kioskStreams, kind: "shop")
        gauge("luthier_open_event_streams", readings.kioskStreams, kind: "kiosk")
        gauge("luthier_live_sessions", readings.sessions)
        var bytes: [UInt8] = []
        registry.emit(into: &bytes)
        return ByteBuffer(bytes: bytes)
    }

    private func gauge(_ name: String, _ value: Int, kind: String? = nil) {
        Gauge(label: name, dimensions: kind.map { [("kind", $0)] } ?? [], factory: factory).record(value)
    }
}
