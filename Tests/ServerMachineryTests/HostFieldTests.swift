import NIOHTTP1
import Testing

@testable import ServerMachinery

@Suite("HostField")
struct HostFieldTests {
    static func head(_ uri: String = "/", version: HTTPVersion = .http1_1, hosts: [String]) -> HTTPRequestHead {
        HTTPRequestHead(version: version, method: .GET, uri: uri, headers: HTTPHeaders(hosts.map { ("Host", $0) }))
    }

    @Test("a name, an IPv4 or bracketed IPv6 address, each with or without a port of digits, is a host")
    func hosts() {
        for value in [
            "shop.example", "Shop.Example:8080", "127.0.0.1:80", "[::1]", "[::1]:8080", "xn--bcher-kva.example", "",
        ] {
            #expect(HostField.isAuthority(value), "\(value)")
            #expect(HostField.problem(of: Self.head(hosts: [value])) == nil, "\(value)")
        }
    }

    @Test("a space, a path, a port that is not digits, an unclosed bracket or a non-ASCII name is not a host")
    func notHosts() {
        for value in [
            "shop.example evil", "shop.example/x", "shop:80a", "shop:8:8", "[::1", "[::g]", "ü.example", "a@b",
        ] {
            #expect(!HostField.isAuthority(value), "\(value)")
            #expect(
                HostField.problem(of: Self.head(hosts: [value]))?.contains("is not a host name") == true, "\(value)")
        }
    }

    @Test("two Host fields, or none in HTTP/1.1, are refused; HTTP/1.0 may leave it out")
    func count() {
        #expect(HostField.problem(of: Self.head(hosts: ["a", "a"])) != nil)
        #expect(HostField.problem(of: Self.head(hosts: []))?.contains("must carry a Host header") == true)
        #expect(HostField.problem(of: Self.head(version: .http1_0, hosts: [])) == nil)
    }

    @Test("a target in absolute form must name the host the field names, in any case")
    func absoluteTarget() {
        #expect(
            HostField.problem(of: Self.head("http://SHOP.example:8080/cart?x", hosts: ["shop.example:8080"])) == nil)
        #expect(
            HostField.problem(of: Self.head("http://evil.example/", hosts: ["shop.example"]))?.contains("agree") == true
        )
        #expect(HostField.targetAuthority("/path?next=http://x") == nil)
    }
}
