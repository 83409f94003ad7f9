import NIOHTTP1

/// The checks HTTP/1.1 makes of a request's `Host` (RFC 9112, section 3.2): a server must answer
/// `400` to a request with more than one, an HTTP/1.1 request with none, and one whose value is not
/// a host with an optional port. A target in absolute form (`GET http://host/…`) names its host
/// itself, and it must agree with the field.
///
/// Without these checks the shop's host allow-list read the first `Host` of two (a proxy in front
/// may read the other), a host and whatever followed a space, and the field rather than the host a
/// target named.
enum HostField {
    /// Why `head` is refused, as the sentence the answer says; nil when its `Host` is sound.
    static func problem(of head: HTTPRequestHead) -> String? {
        let fields = head.headers["host"]
        guard fields.count <= 1 else {
            return "A request must carry one Host header; this one carried \(fields.count).\n"
        }
        guard let field = fields.first else {
            guard head.version.major > 1 || head.version.minor >= 1 else { return nil }
            return "An HTTP/1.1 request must carry a Host header naming the shop's address.\n"
        }
        guard isAuthority(field) else {
            return "The Host header '\(field.prefix(64))' is not a host name with an optional port.\n"
        }
        if let named = targetAuthority(head.uri), named.lowercased() != field.lowercased() {
            return
                "The request's target names the host '\(named.prefix(64))' and its Host header '\(field.prefix(64))'; "
                + "they must agree.\n"
        }
        return nil
    }

    /// Whether `value` is a host (a name, an IPv4 address or a bracketed IPv6 one) with an optional
    /// port of digits, or empty (allowed by the RFC; the allow-list then refuses it).
    static func isAuthority(_ value: String) -> Bool {
        var bytes = Substring(value).utf8[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let inside = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard !inside.isEmpty, inside.allSatisfy({ isHexDigitOrIPv6Punctuation($0) }) else { return false }
            bytes = bytes[bytes.index(after: close)...]
        } else {
            let end = bytes.firstIndex(of: UInt8(ascii: ":")) ?? bytes.endIndex
            guard bytes[..<end].allSatisfy(isRegisteredNameByte) else { return false }
            bytes = bytes[end...]
        }
        guard let colon = bytes.first else { return true }
        return colon == UInt8(ascii: ":") && bytes.dropFirst().allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// The authority a target in absolute form names (`http://shop:8080/path` → `shop:8080`).
    static func targetAuthority(_ uri: String) -> Substring? {
        // Nearly every target is a path: that is settled on its first byte.
        guard uri.utf8.first != UInt8(ascii: "/"), let scheme = uri.range(of: "://") else { return nil }
        let rest = uri[scheme.upperBound...]
        return rest[..<(rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex)]
    }

    /// A byte of a registered name: unreserved, percent-encoded or a sub-delimiter (RFC 3986).
    private static func isRegisteredNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-._~%!$&'()*+,;=".utf8.contains(byte)
        }
    }

    private static func isHexDigitOrIPv6Punctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: ":"), UInt8(ascii: "."):
            true
        default:
            false
        }
    }
}
