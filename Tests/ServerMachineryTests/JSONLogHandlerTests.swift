import Foundation
import Logging
import Synchronization
import Testing

@testable import ServerMachinery

@Suite("JSONLogHandler")
struct JSONLogHandlerTests {
    final class Lines: Sendable {
        private let lines = Mutex<[String]>([])
        var all: [String] { lines.withLock { $0 } }
        func append(_ line: String) { lines.withLock { $0.append(line) } }
    }

    static let instant = Date(timeIntervalSince1970: 1_795_000_000.125)

    static func logger(_ lines: Lines, level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: "luthier") { label in
            JSONLogHandler(label: label, now: { instant }, write: lines.append)
        }
        logger.logLevel = level
        return logger
    }

    static func object(_ line: String) throws -> [String: String] {
        let value = try JSONSerialization.jsonObject(with: Data(line.utf8))
        return try #require(value as? [String: String], "\(line)")
    }

    @Test("each record is one line of JSON with its time, level, label, message and metadata")
    func oneLinePerRecord() throws {
        let lines = Lines()
        var logger = Self.logger(lines)
        logger[metadataKey: "service"] = "shop"
        logger.info("GET / 200", metadata: ["request": "0123456789abcdef", "ms": "1.234"])
        logger.debug("not written at info")
        #expect(lines.all.count == 1)
        let line = try #require(lines.all.first)
        #expect(line.hasSuffix("}\n"))
        #expect(!line.dropLast().contains("\n"))
        let fields = try Self.object(line)
        #expect(
            fields == [
                "time": "2026-11-18T11:06:40.125Z", "level": "info", "label": "luthier", "message": "GET / 200",
                "request": "0123456789abcdef", "ms": "1.234", "service": "shop",
            ])
    }

    @Test("quotes, backslashes, line breaks and control characters stay inside their string")
    func escaping() throws {
        let lines = Lines()
        let logger = Self.logger(lines)
        let hostile = "a \"quoted\" \\ path\nforged line {\"level\":\"error\"}\u{1}\t\u{7f}é"
        logger.warning("\(hostile)", metadata: ["message": "\(hostile)"])
        let line = try #require(lines.all.first)
        #expect(lines.all.count == 1 && !line.dropLast().contains("\n"))
        let fields = try Self.object(line)
        #expect(fields["message"] == hostile)
        // Metadata never replaces the record's own fields.
        #expect(fields["metadata.message"] == hostile)
        #expect(fields["level"] == "warning")
    }
}
