import Foundation
import Logging

/// Writes each log record as one line of JSON, for log shippers (`luthier --log-format json`):
/// `{"time":"2026-11-24T10:00:00.123Z","level":"info","label":"luthier","message":"…",…}` with
/// the record's metadata (and the logger's) as further string fields.
///
/// Made by the executable for its own loggers (`Logger(label:factory:)`), never bootstrapped as
/// the process's global handler. A field of the metadata never replaces `time`, `level`,
/// `label` or `message`; it is written as `metadata.<key>` instead. Strings are written by the
/// event streams' JSON writer (`ServerSentEvent.jsonString`).
public struct JSONLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level = .info
    private let label: String
    private let now: @Sendable () -> Date
    private let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - now: the wall clock the records are stamped with (a test gives a fixed one).
    ///   - write: takes one whole line, newline included (standard output by default).
    public init(
        label: String, now: @escaping @Sendable () -> Date = { Date() },
        write: @escaping @Sendable (String) -> Void = StandardOutput.write
    ) {
        self.label = label
        self.now = now
        self.write = write
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        var fields: [(String, String)] = [
            ("time", Self.timestamp(now())), ("level", event.level.rawValue), ("label", label),
            ("message", event.message.description),
        ]
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            let name = ["time", "level", "label", "message"].contains(key) ? "metadata.\(key)" : key
            fields.append((name, value.description))
        }
        var line = "{"
        for (index, (key, value)) in fields.enumerated() {
            if index > 0 { line += "," }
            line += ServerSentEvent.jsonString(key) + ":" + ServerSentEvent.jsonString(value)
        }
        write(line + "}\n")
    }

    /// RFC 3339 in UTC with milliseconds, as log shippers parse it.
    package static func timestamp(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }
}
