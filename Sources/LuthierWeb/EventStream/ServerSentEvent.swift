import NIOCore

/// The text/event-stream wire format (WHATWG HTML, "Server-sent events").
public enum ServerSentEvent {
    /// The patch event: the changed fragments as JSON, one `data:` line, with an increasing id.
    public static func patch(id: Int, fragments: [Fragment]) -> String {
        var json = "{\"fragments\":["
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { json += "," }
            json += "{\"target\":" + jsonString(fragment.target) + ",\"html\":" + jsonString(fragment.html) + "}"
        }
        json += "]}"
        return "id: \(id)\nevent: patch\ndata: \(json)\n\n"
    }

    /// Tells every open page of the session to go to `location` (e.g. the checkout is ready).
    public static func navigate(id: Int, location: String) -> String {
        "id: \(id)\nevent: navigate\ndata: \(location)\n\n"
    }

    /// Tells the client how long to wait before reconnecting.
    public static func retry(milliseconds: Int) -> String {
        "retry: \(milliseconds)\n\n"
    }

    /// A comment line: keeps proxies and NAT tables from closing an idle stream, shown to nobody.
    public static let heartbeat = ": heartbeat\n\n"

    /// JSON string literal; escapes what JSON requires plus U+2028/U+2029, and `<` so that no
    /// payload can ever close a surrounding tag.
    static func jsonString(_ string: String) -> String {
        var out = "\""
        out.reserveCapacity(string.utf8.count + 16)
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "<": out += "\\u003c"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        out += "\""
        return out
    }
}
