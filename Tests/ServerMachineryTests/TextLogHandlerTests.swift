import Foundation
import Logging
import Synchronization
import Testing

@testable import ServerMachinery

@Suite("TextLogHandler")
struct TextLogHandlerTests {
    typealias Lines = JSONLogHandlerTests.Lines

    /// A clock a test moves by hand, and a format that counts its calls.
    final class Seconds: Sendable {
        private let state = Mutex((now: 1_795_000_000, formatted: 0))
        var formatted: Int { state.withLock { $0.formatted } }
        func advance(by seconds: Int) { state.withLock { $0.now += seconds } }
        func now() -> Int { state.withLock { $0.now } }
        func format(_ second: Int) -> String {
            state.withLock { $0.formatted += 1 }
            return "t\(second)"
        }
    }

    static func logger(_ lines: Lines, _ seconds: Seconds, label: String = "luthier") -> Logger {
        let timestamps = LogTimestamps(clock: { seconds.now() }, format: { seconds.format($0) })
        return Logger(label: label) { TextLogHandler(label: $0, timestamps: timestamps, write: lines.append) }
    }

    @Test("a record is the line swift-log's stream handler writes: time, level, label, metadata, source, message")
    func lineFormat() {
        let lines = Lines()
        var logger = Self.logger(lines, Seconds())
        logger.info("Luthier is up")
        logger[metadataKey: "service"] = "shop"
        logger.info("the handler's metadata as it is now")
        logger.info("GET / 200", metadata: ["request": "0123456789abcdef", "ms": "1.234"])
        logger.warning("metadata of the record wins", metadata: ["service": "kiosk"])
        logger.debug("not written at info")
        #expect(
            lines.all == [
                "t1795000000 info luthier: [ServerMachineryTests] Luthier is up\n",
                "t1795000000 info luthier: service=shop [ServerMachineryTests] the handler's metadata as it is now\n",
                "t1795000000 info luthier: ms=1.234 request=0123456789abcdef service=shop [ServerMachineryTests] GET / 200\n",
                "t1795000000 warning luthier: service=kiosk [ServerMachineryTests] metadata of the record wins\n",
            ])
        let unlabelled = Lines()
        Self.logger(unlabelled, Seconds(), label: "").error("no label")
        #expect(unlabelled.all == ["t1795000000 error: [ServerMachineryTests] no label\n"])
    }

    @Test("the time stamp is made once a second, whichever handler writes")
    func oneStampPerSecond() {
        let lines = Lines()
        let seconds = Seconds()
        let logger = Self.logger(lines, seconds)
        let other = Logger(label: "luthier.refusals") { [copy = logger.handler] _ in copy }
        for _ in 0..<100 { logger.info("a request") }
        other.info("another logger's record")
        #expect(seconds.formatted == 1)
        seconds.advance(by: 1)
        logger.info("the next second")
        #expect(seconds.formatted == 2)
        #expect(lines.all.last?.hasPrefix("t1795000001 info") == true)
    }

    @Test("the local time is written as swift-log writes it, with the zone's offset")
    func localTime() {
        let stamp = LogTimestamps.localTime(0)
        #expect(stamp.wholeMatch(of: /(1969-12-31|1970-01-01)T\d\d:\d\d:\d\d[+-]\d{4}/) != nil, "\(stamp)")
    }
}
