import NIOCore

/// The text/event-stream wire format (WHATWG HTML, "Server-sent events").
public enum ServerSentEvent {
    /// The patch event: the changed fragments as JSON, one `data:` line, with an increasing id.
    public static func patch(
        id: Int, fragments: [Fragment], announcements: [String: FragmentAnnouncement] = [:]
    ) -> String {
        String(buffer: patchEvent(id: id, fragments: fragments, announcements: announcements))
    }

    /// As `patch(id:fragments:)`, written straight into the bytes a stream sends. The picture
    /// alone is about 14 KB of markup to escape on every change, so this works on UTF-8 bytes,
    /// copying each run that needs no escape in one go.
    ///
    /// A fragment whose target `announcements` names carries `"announce":"polite"` (or `status`).
    public static func patchEvent(
        id: Int, fragments: [Fragment], announcements: [String: FragmentAnnouncement] = [:], note: String? = nil
    ) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.reserveCapacity(fragments.reduce(64) { $0 + $1.sentBytes + $1.target.utf8.count + 32 })
        buffer.writeString("id: \(id)\nevent: patch\ndata: {\"fragments\":[")
        for (index, fragment) in fragments.enumerated() {
            buffer.writeStaticString(index > 0 ? ",{\"target\":" : "{\"target\":")
            writeJSONString(fragment.target, into: &buffer)
            if let items = fragment.items {
                writeItems(items, into: &buffer)
            } else {
                buffer.writeStaticString(",\"html\":")
                writeJSONString(fragment.html, into: &buffer)
            }
            switch announcements.isEmpty ? nil : announcements[fragment.target] {
            case .polite?: buffer.writeStaticString(",\"announce\":\"polite\"}")
            case .status?: buffer.writeStaticString(",\"announce\":\"status\"}")
            case nil: buffer.writeStaticString("}")
            }
        }
        buffer.writeStaticString("]")
        if let note {
            buffer.writeStaticString(",\"note\":")
            writeJSONString(note, into: &buffer)
        }
        buffer.writeStaticString("}\n\n")
        return buffer
    }
    /// A list's edits, in order: `"items":[{"id":…,"after":…,"html":…},{"id":…,"html":…},
    /// {"id":…,"remove":true}]` (a put says where it goes; a replacement does not).
    private static func writeItems(_ items: [FragmentItem], into buffer: inout ByteBuffer) {
        buffer.writeStaticString(",\"items\":[")
        for (index, item) in items.enumerated() {
            buffer.writeStaticString(index > 0 ? ",{\"id\":" : "{\"id\":")
            switch item {
            case .put(let id, let html, let after):
                writeJSONString(id, into: &buffer)
                buffer.writeStaticString(",\"after\":")
                if let after { writeJSONString(after, into: &buffer) } else { buffer.writeStaticString("null") }
                buffer.writeStaticString(",\"html\":")
                writeJSONString(html, into: &buffer)
            case .replace(let id, let html):
                writeJSONString(id, into: &buffer)
                buffer.writeStaticString(",\"html\":")
                writeJSONString(html, into: &buffer)
            case .remove(let id):
                writeJSONString(id, into: &buffer)
                buffer.writeStaticString(",\"remove\":true")
            }
            buffer.writeStaticString("}")
        }
        buffer.writeStaticString("]")
    }

    /// Tells every open page of the session to go to `location` (e.g. the checkout is ready).
    public static func navigate(id: Int, location: String) -> String {
        "id: \(id)\nevent: navigate\ndata: \(location)\n\n"
    }

    /// Tells the client how long to wait before reconnecting.
    public static func retry(milliseconds: Int) -> String {
        "retry: \(milliseconds)\n\n"
    }

    /// The last words of a stream the server ends because it is stopping: a comment saying so, and
    /// the reconnection delay again.
    public static func stopping(retryMilliseconds: Int) -> String {
        ": the server is stopping; reconnect\nretry: \(retryMilliseconds)\n\n"
    }

    /// The line that tags the event after it with its stream's number in a bundle (`GET /streams`):
    /// a `data:` line, so the event's data reads `<tag>` then a line end then its own data. It goes
    /// before an event's shared bytes (the same patch many streams send) without copying them.
    public static func tag(_ tag: Int) -> String {
        "data: \(tag)\n"
    }

    /// A bundle's first event: its id (`id` is hexadecimal), which the client's next bundle names
    /// to replace it, and the delay its client waits before connecting again (the worker reconnects
    /// itself, with each stream's own version, where a browser would resend the URL it began with).
    public static func bundle(id: String, retryMilliseconds: Int) -> String {
        "event: bundle\ndata: {\"id\":\(jsonString(id)),\"retry\":\(retryMilliseconds)}\n\n"
    }

    /// The stream a bundle could not open: its tag, and the answer its own URL would have had.
    public static func refused(tag: Int, status: Int, message: String, retryAfter: Int?) -> String {
        let retry = retryAfter.map { ",\"retryAfter\":\($0)" } ?? ""
        return
            "event: refused\ndata: \(tag)\ndata: {\"status\":\(status)\(retry),\"message\":\(jsonString(message))}\n\n"
    }

    /// A comment line: keeps proxies and NAT tables from closing an idle stream, shown to nobody.
    public static let heartbeat = ": heartbeat\n\n"

    /// JSON string literal; escapes what JSON requires plus U+2028/U+2029, and `<` so that no
    /// payload can ever close a surrounding tag.
    package static func jsonString(_ string: String) -> String {
        var buffer = ByteBuffer()
        writeJSONString(string, into: &buffer)
        return String(buffer: buffer)
    }

    /// Writes `string` as a JSON string literal (see `jsonString`).
    package static func writeJSONString(_ string: String, into buffer: inout ByteBuffer) {
        buffer.writeStaticString("\"")
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            func flush(upTo end: Int) {
                if end > runStart {
                    buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<end])))
                }
            }
            while index < bytes.count {
                let byte = bytes[index]
                let escape: StaticString?
                var length = 1
                switch byte {
                case UInt8(ascii: "\""): escape = "\\\""
                case UInt8(ascii: "\\"): escape = "\\\\"
                case UInt8(ascii: "\n"): escape = "\\n"
                case UInt8(ascii: "\r"): escape = "\\r"
                case UInt8(ascii: "\t"): escape = "\\t"
                case UInt8(ascii: "<"): escape = "\\u003c"
                case 0..<0x20: escape = nil
                // U+2028 and U+2029 are E2 80 A8 and E2 80 A9 in UTF-8.
                case 0xE2
                where index + 2 < bytes.count && bytes[index + 1] == 0x80
                    && (bytes[index + 2] == 0xA8 || bytes[index + 2] == 0xA9):
                    escape = bytes[index + 2] == 0xA8 ? "\\u2028" : "\\u2029"
                    length = 3
                default:
                    index += 1
                    continue
                }
                flush(upTo: index)
                if let escape {
                    buffer.writeStaticString(escape)
                } else {
                    buffer.writeStaticString("\\u00")
                    buffer.writeInteger(hexDigit(byte >> 4))
                    buffer.writeInteger(hexDigit(byte & 0x0F))
                }
                index += length
                runStart = index
            }
            flush(upTo: bytes.count)
        }
        buffer.writeStaticString("\"")
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? UInt8(ascii: "0") + value : UInt8(ascii: "a") + value - 10
    }
}

extension Fragment {
    /// About how many bytes of markup the event carries for this fragment, before escaping.
    fileprivate var sentBytes: Int { items.map { $0.reduce(0) { $0 + $1.size } } ?? html.utf8.count }
}
