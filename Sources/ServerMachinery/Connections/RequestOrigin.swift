import Foundation
import Hummingbird
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a request comes from and how it reached the shop: the host name it asked for, the scheme
/// the browser used and the client's address, read from a reverse proxy's headers only when the
/// operator says a trusted proxy stands in front (`--trust-proxy`); otherwise anyone could forge them.
public struct RequestOrigin: Sendable {
    /// Host names the shop answers to (lowercased, IPv6 without brackets). A page fetched under
    /// another name (DNS rebinding: an attacker's name pointed at the shop's address) is refused,
    /// so a site elsewhere can never read the shop's pages as if it were the shop.
    public let allowedHosts: Set<String>
    /// Whether `Forwarded` (RFC 7239), `X-Forwarded-Proto` and `X-Forwarded-For` are believed.
    public let trustProxy: Bool
    /// How many leading bits of an IPv6 address name one client for the per-client limits: a
    /// host is given a whole /64 and can take a new address in it for every request, so the
    /// limits count the prefix, not the address.
    public let ipv6ClientPrefix: Int

    public init(allowedHosts: Set<String>, trustProxy: Bool, ipv6ClientPrefix: Int = 64) {
        self.allowedHosts = Set(allowedHosts.map { Self.hostName(fromAuthority: $0) ?? $0.lowercased() })
        self.trustProxy = trustProxy
        self.ipv6ClientPrefix = min(max(ipv6ClientPrefix, 1), 128)
    }

    /// The default names: localhost, the loopback and listen addresses, every address of this
    /// machine (as printed at start-up) and its host name, also with `.local` for the LAN's mDNS.
    public static func defaultHosts(listeningOn host: String, port: Int) -> Set<String> {
        var hosts: Set<String> = ["localhost", "127.0.0.1", "::1"]
        if host != "0.0.0.0" && host != "::" { hosts.insert(host.lowercased()) }
        for url in ServerAddresses.urls(host: host == "::" ? "::" : "0.0.0.0", port: port) {
            if let name = hostName(fromAuthority: String(url.dropFirst("http://".count))) { hosts.insert(name) }
        }
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count - 1) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .lowercased()
            if !name.isEmpty {
                hosts.insert(name)
                hosts.insert(name + ".local")
            }
        }
        return hosts
    }

    /// The host name of an authority (`host`, `host:port`, `[v6]:port`), lowercased; nil for
    /// something that is not one.
    package static func hostName(fromAuthority authority: String) -> String? {
        // One pass over the bytes and one string made: this runs for every request.
        let bytes = authority.utf8
        let colon = UInt8(ascii: ":")
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            return String(authority[bytes.index(after: bytes.startIndex)..<close]).lowercased()
        }
        guard let first = bytes.firstIndex(of: colon) else {
            return authority.isEmpty ? nil : authority.lowercased()
        }
        if bytes[bytes.index(after: first)...].contains(colon) { return authority.lowercased() }  // a bare IPv6 address
        return first == bytes.startIndex ? nil : String(authority[..<first]).lowercased()
    }

    /// Whether the request names a host the shop answers to. A request with no host at all
    /// (HTTP/1.0 tools) cannot come from a browser page and is served.
    package func allows(_ request: Request) -> Bool {
        guard let authority = request.head.authority else { return true }
        guard let name = Self.hostName(fromAuthority: authority) else { return false }
        return allowedHosts.contains(name)
    }

    /// Whether the browser reached the shop over TLS (told by a trusted proxy: `Forwarded`'s
    /// `proto`, else `X-Forwarded-Proto`).
    package func isSecure(_ request: Request) -> Bool {
        guard trustProxy else { return false }
        if let forwarded = Self.forwarded(request.headers[.forwarded]) { return forwarded.proto == "https" }
        guard let proto = request.headers[.xForwardedProto] else { return false }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// The origin a same-site page of this request has: scheme, host and port, as browsers send it.
    package func expectedOrigin(of request: Request) -> String? {
        request.head.authority.map { "\(isSecure(request) ? "https" : "http")://\($0.lowercased())" }
    }

    /// The client as the per-client limits count it: its address (`peerAddress`), an IPv6 one
    /// cut to its first `ipv6ClientPrefix` bits (`2001:db8:1:2::/64`), so that a host rotating
    /// through its prefix is still one client.
    package func clientAddress(of request: Request, channel: any Channel) -> String {
        Self.limitKey(of: peerAddress(of: request, channel: channel), ipv6Prefix: ipv6ClientPrefix)
    }

    /// The client's address, as a security log names it: the one a trusted proxy says it forwarded
    /// for (the last element of `Forwarded`, else the last hop of `X-Forwarded-For`), else the
    /// connection's peer.
    package func peerAddress(of request: Request, channel: any Channel) -> String {
        if trustProxy {
            if let forwarded = Self.forwarded(request.headers[.forwarded]), let client = forwarded.client {
                return client
            }
            if let forwarded = request.headers[.xForwardedFor],
                let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
            {
                return String(last.prefix(64))
            }
        }
        return channel.remoteAddress?.ipAddress ?? "unknown"
    }

    /// What the proxy nearest the shop wrote in `Forwarded` (RFC 7239: the last element): the
    /// client it forwarded for (an address without brackets or port; nil for `unknown` or an
    /// obfuscated `_name`), and the scheme the browser used, lowercased.
    package static func forwarded(_ header: String?) -> (client: String?, proto: String?)? {
        guard let header, let last = header.split(separator: ",").last else { return nil }
        var client: String?
        var proto: String?
        for pair in last.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2 else { continue }
            let value = parts[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            switch parts[0].lowercased() {
            case "for": client = node(value)
            case "proto": proto = value.lowercased()
            default: break
            }
        }
        return client == nil && proto == nil ? nil : (client, proto)
    }

    /// The address of a `for=` node: `192.0.2.60`, `192.0.2.60:4711`, `[2001:db8::17]:4711`.
    private static func node(_ value: String) -> String? {
        guard !value.isEmpty, value.lowercased() != "unknown", !value.hasPrefix("_") else { return nil }
        if value.hasPrefix("[") {
            guard let close = value.firstIndex(of: "]") else { return nil }
            return String(value[value.index(after: value.startIndex)..<close].prefix(64))
        }
        if value.filter({ $0 == ":" }).count == 1 { return value.split(separator: ":").first.map { String($0) } }
        return String(value.prefix(64))
    }

    /// The key a per-client limit counts `address` under: an IPv4 address as it is (an IPv4 one
    /// written as IPv6, `::ffff:192.0.2.1`, as IPv4), an IPv6 address as its first `prefix` bits
    /// with the length (`2001:db8:1:2::/64`), anything else as it is.
    package static func limitKey(of address: String, ipv6Prefix prefix: Int) -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xff && bytes[11] == 0xff {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        for index in 0..<16 {
            let kept = min(max(prefix - index * 8, 0), 8)
            bytes[index] &= kept == 8 ? 0xff : UInt8(truncatingIfNeeded: 0xff << (8 - kept))
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, bytes, &text, socklen_t(text.count)) != nil else { return address }
        let masked = String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return "\(masked)/\(prefix)"
    }
}
