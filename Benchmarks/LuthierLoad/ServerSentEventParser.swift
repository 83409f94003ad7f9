import Foundation
import NIOCore

/// An incremental `text/event-stream` parser.
///
/// Body chunks arrive cut anywhere, so bytes are kept until a blank line ends an event; each
/// complete event is returned once. Comments (`: heartbeat`) and `retry:` lines are skipped.
/// The search for the blank line is `Data.range(of:)` (a library routine) rather than a byte loop,
/// because the first patch of a page is tens of kilobytes and a thousand of them arrive at once;
/// a byte loop in a debug build made the tool, not the server, the bottleneck. Events end with
/// `\n\n` (what luthier sends); CR line ends are not supported.
struct ServerSentEventParser {
    struct Event: Sendable {
        var name = "message"
        var data = ""
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
        var dataLines: [Substring] = []
        for line in String(decoding: block, as: UTF8.self).split(separator: "\n") {
            if line.hasPrefix(":") { continue }
            let field = line.prefix { $0 != ":" }
            var value = line.dropFirst(field.count).dropFirst()
            if value.hasPrefix(" ") { value = value.dropFirst() }
            switch field {
            case "event": event.name = String(value)
            case "data": dataLines.append(value)
            default: continue
            }
        }
        if dataLines.isEmpty { return nil }
        event.data = dataLines.joined(separator: "\n")
        return event
    }
}
