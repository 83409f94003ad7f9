import Foundation
import NIOCore

/// An incremental `text/event-stream` parser.
///
/// Body chunks arrive cut anywhere, so bytes are kept until a blank line ends an event; each
/// complete event is returned once. Comments (`: heartbeat`) and `retry:` lines are skipped.
/// It works on bytes throughout (`Data.range(of:)` for the blank line, byte splits for lines,
/// the data left as bytes): a thousand kiosks receive the same multi-kilobyte patch at once, and
/// a parser that built strings and split them into characters made the tool, not the server,
/// the slowest part of the broadcast. Events end with `\n\n` (what luthier sends); CR line ends
/// are not supported.
struct ServerSentEventParser {
    struct Event: Sendable {
        var name = "message"
        /// The data lines, joined by `\n`, as UTF-8 bytes.
        var data = Data()
    }

    private static let separator = Data("\n\n".utf8)
    private var pending = Data()
    private var scanned = 0

    mutating func feed(_ buffer: ByteBuffer) -> [Event] {
        buffer.withUnsafeReadableBytes { pending.append(contentsOf: $0) }
        var events: [Event] = []
        var start = pending.startIndex
        var from = pending.startIndex + max(scanned - 1, 0)
        while let range = pending.range(of: Self.separator, in: from..<pending.endIndex) {
            if let event = Self.parse(pending[start..<range.lowerBound]) { events.append(event) }
            start = range.upperBound
            from = start
        }
        if start > pending.startIndex {
            pending = Data(pending[start...])
        }
        scanned = pending.count
        return events
    }

    private static func parse(_ block: Data) -> Event? {
        var event = Event()
        var hasData = false
        for line in block.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { continue }
            var valueStart = line.index(after: colon)
            if valueStart < line.endIndex, line[valueStart] == UInt8(ascii: " ") { valueStart += 1 }
            let value = line[valueStart...]
            switch String(decoding: line[line.startIndex..<colon], as: UTF8.self) {
            case "event":
                event.name = String(decoding: value, as: UTF8.self)
            case "data":
                if hasData { event.data.append(UInt8(ascii: "\n")) }
                event.data.append(contentsOf: value)
                hasData = true
            default:
                continue
            }
        }
        return hasData ? event : nil
    }
}
