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
    /// Whether `X-Forwarded-Proto` and `X-Forwarded-For` are believed.
    public let trustProxy: Bool

    public init(allowedHosts: Set<String>, trustProxy: Bool) {
        self.allowedHosts = Set(allowedHosts.map { Self.hostName(fromAuthority: $0) ?? $0.lowercased() })
        self.trustProxy = trustProxy
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
    static func hostName(fromAuthority authority: String) -> String? {
        let text = authority.lowercased()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        if text.filter({ $0 == ":" }).count > 1 { return text }  // a bare IPv6 address
        let name = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init)
        return name?.isEmpty == false ? name : nil
    }

    /// Whether the request names a host the shop answers to. A request with no host at all
    /// (HTTP/1.0 tools) cannot come from a browser page and is served.
    func allows(_ request: Request) -> Bool {
        guard let authority = request.head.authority else { return true }
        guard let name = Self.hostName(fromAuthority: authority) else { return false }
        return allowedHosts.contains(name)
    }

    /// Whether the browser reached the shop over TLS (told by a trusted proxy).
    func isSecure(_ request: Request) -> Bool {
        guard trustProxy, let proto = request.headers[.xForwardedProto] else { return false }
        return proto.split(separator: ",").first?.trimmingCharacters(in: .whitespaces).lowercased() == "https"
    }

    /// The origin a same-site page of this request has: scheme, host and port, as browsers send it.
    func expectedOrigin(of request: Request) -> String? {
        request.head.authority.map { "\(isSecure(request) ? "https" : "http")://\($0.lowercased())" }
    }

    /// The client's address: the last hop a trusted proxy added to `X-Forwarded-For`, else the
    /// connection's peer. Used to share limits fairly between clients; never logged.
    func clientAddress(of request: Request, channel: any Channel) -> String {
        if trustProxy, let forwarded = request.headers[.xForwardedFor],
            let last = forwarded.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return String(last.prefix(64))
        }
        return channel.remoteAddress?.ipAddress ?? "unknown"
    }
}
