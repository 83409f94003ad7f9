import Logging
import Synchronization

/// Keeps every line logged through it, so that a test can read what the server logged.
package final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    package init() {}

    /// Every line so far: the level, the message, then the metadata as `key=value`, sorted.
    package var all: [String] { lines.withLock { $0 } }

    /// A logger at the most detailed level that writes into this capture.
    package func logger(label: String = "luthier-test") -> Logger {
        Logger(label: label) { _ in Handler(capture: self) }
    }

    fileprivate func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    private struct Handler: LogHandler {
        package let capture: LogCapture
        package var metadata: Logger.Metadata = [:]
        package var logLevel: Logger.Level = .trace

        package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        package func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            let pairs = all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            capture.append(([event.level.rawValue, event.message.description] + pairs).joined(separator: " "))
        }
    }
}
