import Foundation
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// An incremental `text/event-stream` parser.
///
/// Body chunks arrive cut anywhere, so bytes are kept until a blank line ends an event; each
/// complete event is returned once. Comments (`: heartbeat`) and `retry:` lines are skipped.
/// Events end with `\n\n` (what luthier sends); CR line ends are not supported.
///
/// It works on a byte array through unsafe buffer pointers, byte by byte. A thousand kiosks
/// receive the same multi-kilobyte patch at once, and this tool must read them faster than a
/// server sends them, or the broadcast times the tool: the version before, which searched and
/// split `Data` slices, spent 85 % of the tool's CPU in those calls and their exclusivity checks,
/// and the tool used about seven times the server's CPU over a broadcast.
struct ServerSentEventParser {
    struct Event: Sendable {
        var name = "message"
        /// The data lines, joined by `\n`, as UTF-8 bytes.
        var data = Data()

        /// Whether the data holds `needle` (a fragment's `"target":"…"`), without decoding it.
        func contains(_ needle: [UInt8]) -> Bool {
            guard !needle.isEmpty else { return true }
            return data.withUnsafeBytes { (haystack: UnsafeRawBufferPointer) in
                needle.withUnsafeBytes { (needle: UnsafeRawBufferPointer) in
                    guard let start = haystack.baseAddress, let wanted = needle.baseAddress,
                        haystack.count >= needle.count
                    else { return false }
                    // Each place the first byte occurs (memchr), compared whole (memcmp).
                    let last = haystack.count - needle.count
                    var offset = 0
                    while offset <= last,
                        let found = memchr(start + offset, Int32(needle[0]), last - offset + 1)
                    {
                        offset = start.distance(to: UnsafeRawPointer(found))
                        if memcmp(start + offset, wanted, needle.count) == 0 { return true }
                        offset += 1
                    }
                    return false
                }
            }
        }
    }

    private static let newline = UInt8(ascii: "\n")
    private static let colon = UInt8(ascii: ":")
    private static let space = UInt8(ascii: " ")
    private static let eventField = Array("event".utf8)
    private static let dataField = Array("data".utf8)

    /// Bytes not yet part of a complete event.
    private var pending: [UInt8] = []
    /// How many of `pending` were searched for a blank line without finding one.
    private var scanned = 0

    mutating func feed(_ buffer: ByteBuffer) -> [Event] {
        pending.append(contentsOf: buffer.readableBytesView)
        var events: [Event] = []
        // A newline that ended the last chunk may be the first half of the blank line.
        let from = max(scanned - 1, 0)
        let consumed = pending.withUnsafeBufferPointer { bytes in
            var start = 0
            var index = from
            while index + 1 < bytes.count {
                if bytes[index] == Self.newline && bytes[index + 1] == Self.newline {
                    if let event = Self.parse(UnsafeBufferPointer(rebasing: bytes[start..<index])) {
                        events.append(event)
                    }
                    start = index + 2
                    index = start
                } else {
                    index += 1
                }
            }
            return start
        }
        if consumed > 0 { pending.removeFirst(consumed) }
        scanned = pending.count
        return events
    }

    /// One event's lines (without the blank line that ended it); nil when it has no data.
    private static func parse(_ block: UnsafeBufferPointer<UInt8>) -> Event? {
        var event = Event()
        var hasData = false
        var lineStart = 0
        while lineStart < block.count {
            var lineEnd = lineStart
            while lineEnd < block.count && block[lineEnd] != newline { lineEnd += 1 }
            defer { lineStart = lineEnd + 1 }
            var colon = lineStart
            while colon < lineEnd && block[colon] != Self.colon { colon += 1 }
            // A line without a colon names a field with no value; one that starts with it is a
            // comment. Neither is anything this tool reads.
            guard colon < lineEnd, colon > lineStart else { continue }
            var valueStart = colon + 1
            if valueStart < lineEnd, block[valueStart] == space { valueStart += 1 }
            let field = UnsafeBufferPointer(rebasing: block[lineStart..<colon])
            let value = UnsafeBufferPointer(rebasing: block[valueStart..<lineEnd])
            if field.elementsEqual(eventField) {
                event.name = String(decoding: value, as: UTF8.self)
            } else if field.elementsEqual(dataField) {
                if hasData { event.data.append(newline) }
                event.data.append(contentsOf: value)
                hasData = true
            }
        }
        return hasData ? event : nil
    }
}
