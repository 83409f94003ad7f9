import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Writes each log record as one line of text, as swift-log's `StreamLogHandler` does
/// (`2026-11-25T03:30:00+0000 info luthier: ms=0.412 request=00ab… [LuthierWeb] GET / 200`), for
/// `luthier --log-format text` (the default), with the time stamped by a shared
/// `LogTimestamps`.
///
/// `StreamLogHandler` formats the local time with `localtime` and `strftime` for every line, and
/// glibc, with `TZ` unset, then looks at `/etc/localtime` again each time (a `stat`): in a profile
/// of `/healthz` (`perf record -g`) the time stamp was a third of the request log's cost, and the
/// request log a tenth of the request's. The stamp counts whole seconds, so one made per second is
/// the same text.
///
/// Made by the executable for its own loggers (`Logger(label:factory:)`), never bootstrapped as
/// the process's global handler.
public struct TextLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:] {
        didSet { prettyIsCurrent = false }
    }
    /// The handler's own metadata as a line shows it, made when the handler is, and again at
    /// each line only once the metadata has changed: Hummingbird gives every request's logger
    /// its request id, and that logger seldom writes a line (made at each change, it was 2.5 %
    /// of answering `/healthz`).
    private var prettyMetadata: String?
    private var prettyIsCurrent = true
    private let label: String
    private let timestamps: LogTimestamps
    private let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - timestamps: the stamps, shared by every logger of the process (each handler is a copy).
    ///   - write: takes one whole line, newline included (standard output by default).
    public init(
        label: String, timestamps: LogTimestamps,
        write: @escaping @Sendable (String) -> Void = StandardOutput.write
    ) {
        self.label = label
        self.timestamps = timestamps
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var pretty = prettyIsCurrent ? prettyMetadata : Self.pretty(metadata)
        if let explicit = event.metadata, !explicit.isEmpty {
            pretty = Self.pretty(metadata.merging(explicit) { _, explicit in explicit })
        }
        let labelPart = label.isEmpty ? "" : " \(label)"
        write(
            "\(timestamps.now()) \(event.level)\(labelPart):\(pretty.map { " \($0)" } ?? "") [\(event.source)] \(event.message)\n"
        )
    }

    /// `key=value` pairs in key order, as `StreamLogHandler` writes them; nil for none.
    package static func pretty(_ metadata: Logger.Metadata) -> String? {
        metadata.isEmpty
            ? nil : metadata.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    }
}

/// The local time as log lines stamp it (`%Y-%m-%dT%H:%M:%S%z`), made once per second and shared
/// by every handler that holds it.
public final class LogTimestamps: Sendable {
    private let clock: @Sendable () -> Int
    private let format: @Sendable (Int) -> String
    private let latest = Mutex<(second: Int, text: String)?>(nil)

    /// - Parameters:
    ///   - clock: whole seconds since 1970 (the system's by default; a test gives its own).
    ///   - format: a second as the line shows it (local time by default).
    public init(
        clock: @escaping @Sendable () -> Int = { Int(time(nil)) },
        format: @escaping @Sendable (Int) -> String = LogTimestamps.localTime
    ) {
        self.clock = clock
        self.format = format
    }

    /// The stamp of the current second.
    public func now() -> String {
        let second = clock()
        if let kept = latest.withLock({ $0?.second == second ? $0?.text : nil }) { return kept }
        let text = format(second)
        latest.withLock { $0 = (second, text) }
        return text
    }

    /// `second` in the machine's time zone, as `StreamLogHandler` writes it.
    public static let localTime: @Sendable (Int) -> String = { second in
        var seconds = time_t(second)
        var local = tm()
        guard localtime_r(&seconds, &local) != nil else { return "<unknown>" }
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &local)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
