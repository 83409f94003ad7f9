import HTTPTypes
import NIOHTTP1

extension HTTPField.Name {
    // swift-format-ignore: NeverForceUnwrap
    /// Tells nginx-style proxies not to buffer an event stream.
    package static let xAccelBuffering = HTTPField.Name("X-Accel-Buffering")!
    // swift-format-ignore: NeverForceUnwrap
    /// Set by the page's script on its `fetch` posts, so the server answers 204 instead of 303.
    package static let xRequestedWith = HTTPField.Name("X-Requested-With")!
    // swift-format-ignore: NeverForceUnwrap
    /// The id of a request in the server's log, sent with its answer.
    package static let xRequestID = HTTPField.Name("X-Request-Id")!
    // swift-format-ignore: NeverForceUnwrap
    package static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")!
    // swift-format-ignore: NeverForceUnwrap
    package static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
    // swift-format-ignore: NeverForceUnwrap
    package static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
    // swift-format-ignore: NeverForceUnwrap
    package static let xFrameOptions = HTTPField.Name("X-Frame-Options")!
    // swift-format-ignore: NeverForceUnwrap
    /// Set by a reverse proxy: the scheme the browser used.
    package static let xForwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    // swift-format-ignore: NeverForceUnwrap
    /// Set by a reverse proxy: the addresses the request passed through, the client's first.
    package static let xForwardedFor = HTTPField.Name("X-Forwarded-For")!
    // swift-format-ignore: NeverForceUnwrap
    /// Set by a reverse proxy (RFC 7239): for whom, and over which scheme, each hop forwarded.
    package static let forwarded = HTTPField.Name("Forwarded")!
    // swift-format-ignore: NeverForceUnwrap
    package static let strictTransportSecurity = HTTPField.Name("Strict-Transport-Security")!
    // swift-format-ignore: NeverForceUnwrap
    /// Sent by a reconnecting `EventSource`: the id of the last event it received.
    package static let lastEventID = HTTPField.Name("Last-Event-ID")!
}

extension HTTPFields {
    /// All lines of a list-valued header joined with `,`, as RFC 9110 §5.3 says they are
    /// equivalent; nil when there is none.
    package func joinedValues(_ name: HTTPField.Name) -> String? {
        HTTPFields.joinedList(self[values: name])
    }

    /// Lines of one list-valued field as one list; a single line as it is, none as nil.
    package static func joinedList(_ lines: [String]) -> String? {
        lines.count > 1 ? lines.joined(separator: ",") : lines.first
    }
}

extension HTTPHeaders {
    /// As `HTTPFields.joinedValues`, on NIO's own HTTP/1 head (read before the conversion to HTTP
    /// types, by the static files).
    package func joinedValues(_ name: String) -> String? {
        HTTPFields.joinedList(self[name])
    }
}

extension HTTPFields {
    /// The value of the request's cookie `name`: the first one, as Hummingbird's `Cookies` reads
    /// it, found by scanning the `Cookie` lines rather than parsing every cookie into a value (the
    /// session cookie is read on every request, and that parse was 5 % of a page's time).
    package func cookieValue(named name: String) -> String? {
        // Bytes, not characters: the separators are ASCII, and walking `Character`s (grapheme
        // breaking) made this scan 2 % of a page run's samples.
        let semicolon = UInt8(ascii: ";")
        let equalsSign = UInt8(ascii: "=")
        for field in self where field.name == .cookie {
            let text = field.value
            let bytes = text.utf8
            var start = bytes.startIndex
            while start < bytes.endIndex {
                let end = bytes[start...].firstIndex(of: semicolon) ?? bytes.endIndex
                var pair = start
                while pair < end, bytes[pair] == UInt8(ascii: " ") || bytes[pair] == UInt8(ascii: "\t") {
                    pair = bytes.index(after: pair)
                }
                if let equals = bytes[pair..<end].firstIndex(of: equalsSign),
                    bytes[pair..<equals].elementsEqual(name.utf8)
                {
                    // An empty value is no cookie (as `Cookies` reads it), and ends the search.
                    let value = bytes.index(after: equals)
                    return value == end ? nil : String(text[value..<end])
                }
                start = end == bytes.endIndex ? end : bytes.index(after: end)
            }
        }
        return nil
    }
}
