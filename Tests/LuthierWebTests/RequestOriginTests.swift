import NIOCore
import ServerMachinery
import TestSupport
import Testing

@testable import LuthierWeb

/// Which host names the shop answers to, which origins may post, and what a trusted TLS proxy
/// changes, over real HTTP.
@Suite("RequestOrigin over HTTP")
struct RequestOriginTests {
    @Test("a page asked for under a foreign host name (DNS rebinding) gets 400 and no session")
    func foreignHostRefused() async throws {
        try await TestApp.run { app in
            for host in ["evil.example", "evil.example:\(app.port)", "127.0.0.1.evil.example"] {
                let response = try await app.get("/", headers: [("Host", host)])
                #expect(response.status == 400, "\(host): \(response)")
                #expect(response.text.contains("does not answer to the host name"), "\(response.text)")
                #expect(response.headers["Set-Cookie"].isEmpty)
                let post = try await app.post(
                    form: "color=sky", headers: [("Host", host), ("Origin", "http://\(host)")])
                #expect(post.status == 400, "\(host): \(post)")
            }
            #expect(app.services.registry.count == 0)
            for host in ["127.0.0.1:\(app.port)", "localhost:\(app.port)", "LOCALHOST", "[::1]:\(app.port)"] {
                #expect(try await app.get("/healthz", headers: [("Host", host)]).status == 200, "\(host)")
            }
        }
    }

    @Test(
        "a Host header twice, none in HTTP/1.1, one that is not a host, or a target naming another host: 400, closed"
    )
    func malformedHostRefused() async throws {
        try await TestApp.run { app in
            let own = "127.0.0.1:\(app.port)"
            let heads: [(String, String)] = [
                ("GET / HTTP/1.1\r\nHost: \(own)\r\nHost: evil.example\r\n", "one Host header"),
                ("GET / HTTP/1.1\r\n", "must carry a Host header"),
                ("GET / HTTP/1.1\r\nHost: \(own) evil\r\n", "is not a host name"),
                ("GET / HTTP/1.1\r\nHost: \(own)/x\r\n", "is not a host name"),
                ("GET / HTTP/1.1\r\nHost: 127.0.0.1:80a\r\n", "is not a host name"),
                ("GET http://evil.example/ HTTP/1.1\r\nHost: \(own)\r\n", "must agree"),
            ]
            try await Self.expectRefused(heads, on: app)
            #expect(app.services.registry.count == 0)
            // HTTP/1.0 may leave Host out, and a target in absolute form may name the shop itself.
            for head in ["GET /healthz HTTP/1.0\r\n", "GET http://\(own)/healthz HTTP/1.1\r\nHost: \(own)\r\n"] {
                let connection = try await RawHTTPConnection.connect(port: app.port)
                let result = await connection.exchange(
                    ByteBuffer(string: head + "\r\n"), expecting: [.whole(isHead: false)], timeout: .seconds(30))
                #expect(try result.get().first?.status == 200, "\(head)")
                await connection.close()
            }
        }
    }

    @Test("a head the parser cannot read is answered 400 with a sentence saying why and the security headers")
    func unreadableHeadRefused() async throws {
        try await TestApp.run { app in
            let own = "Host: 127.0.0.1:\(app.port)\r\n"
            let heads: [(String, String)] = [
                ("GET / HTTP/1.1\r\n\(own)X-Padding: \(String(repeating: "p", count: 100_000))\r\n", "larger than"),
                ("get / HTTP/1.1\r\n\(own)", "method"),
                ("POST /build HTTP/1.1\r\n\(own)Content-Length: 4\r\nTransfer-Encoding: chunked\r\n", "not both"),
                ("GET / HTTP/7.1\r\n\(own)", "HTTP/1.1"),
            ]
            try await Self.expectRefused(heads, on: app)
        }
    }

    /// Sends each head on a connection of its own and expects `400` with its sentence (containing
    /// the text given with it), the security headers, and the connection closed.
    private static func expectRefused(_ heads: [(String, String)], on app: TestApp) async throws {
        for (head, saying) in heads {
            let connection = try await RawHTTPConnection.connect(port: app.port)
            let result = await connection.exchange(
                ByteBuffer(string: head + "\r\n"), expecting: [.whole(isHead: false)], timeout: .seconds(30))
            let response = try #require(try result.get().first, "\(head.prefix(60))")
            #expect(response.status == 400, "\(head.prefix(60)): \(response)")
            #expect(response.text.contains(saying), "\(head.prefix(60)): \(response.text)")
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(head.prefix(60))")
            #expect(response.closesConnection, "\(head.prefix(60))")
            await connection.close()
        }
    }

    @Test("--allowed-host replaces the defaults")
    func configuredHosts() async throws {
        try await TestApp.run(configure: { $0.allowedHosts = ["shop.example"] }) { app in
            var statuses: [Int] = []
            for host in ["shop.example:8080", "Shop.Example", "127.0.0.1:\(app.port)"] {
                statuses.append(try await app.get("/healthz", headers: [("Host", host)]).status)
            }
            #expect(statuses == [200, 200, 400])
        }
    }

    @Test("Origin must match scheme, host and port: https is another origin than http without a trusted proxy")
    func originMatchesExactly() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let host = "127.0.0.1:\(app.port)"
            for origin in ["https://\(host)", "http://127.0.0.1:1", "http://localhost:\(app.port)"] {
                let response = try await app.scriptPost(
                    form: "color=sky", cookie: cookie, headers: [("Host", host), ("Origin", origin)])
                #expect(response.status == 403, "\(origin)")
            }
            // A forged X-Forwarded-Proto is not believed without --trust-proxy.
            let forged = try await app.scriptPost(
                form: "color=sky", cookie: cookie,
                headers: [("Host", host), ("Origin", "https://\(host)"), ("X-Forwarded-Proto", "https")])
            #expect(forged.status == 403)
            #expect(try await app.page(cookie: cookie).checkedValues["color"] == ["natural"])
        }
    }

    @Test("behind a trusted TLS proxy: the cookie is Secure, HSTS is sent, and the https origin posts")
    func trustedTLSProxy() async throws {
        let https = [("X-Forwarded-Proto", "https"), ("X-Forwarded-For", "203.0.113.9")]
        try await TestApp.run(configure: { $0.trustProxy = true }) { app in
            let page = try await app.get("/", headers: https)
            #expect(page.status == 200)
            let cookie = try #require(SetCookie(page))
            #expect(cookie.attributes["secure"] != nil, "\(page.headers["Set-Cookie"])")
            #expect(page.header("Strict-Transport-Security") == "max-age=31536000")
            let host = "127.0.0.1:\(app.port)"
            let post = try await app.scriptPost(
                form: "color=sky", cookie: cookie.value,
                headers: [("Host", host), ("Origin", "https://\(host)")] + https)
            #expect(post.status == 204, "\(post)")
            // Plain HTTP through the same proxy: neither.
            let plain = try await app.get("/")
            #expect(SetCookie(plain)?.attributes["secure"] == nil)
            #expect(plain.header("Strict-Transport-Security") == nil)
        }
        try await TestApp.run { app in
            let page = try await app.get("/", headers: https)
            #expect(SetCookie(page)?.attributes["secure"] == nil, "not believed without --trust-proxy")
            #expect(page.header("Strict-Transport-Security") == nil)
        }
    }

    @Test("host names are read from every form of authority")
    func hostNames() {
        #expect(RequestOrigin.hostName(fromAuthority: "Shop.Example:8080") == "shop.example")
        #expect(RequestOrigin.hostName(fromAuthority: "[::1]:8080") == "::1")
        #expect(RequestOrigin.hostName(fromAuthority: "::1") == "::1")
        #expect(RequestOrigin.hostName(fromAuthority: "localhost") == "localhost")
        #expect(RequestOrigin.hostName(fromAuthority: ":80") == nil)
        #expect(RequestOrigin.hostName(fromAuthority: "[::1") == nil)
    }

    @Test("per-client limits count an IPv6 address by its prefix, an IPv4 one as it is")
    func limitKeys() {
        #expect(RequestOrigin.limitKey(of: "2001:db8:1:2:aaaa::1", ipv6Prefix: 64) == "2001:db8:1:2::/64")
        #expect(RequestOrigin.limitKey(of: "2001:DB8:1:2:bbbb:cccc:dddd:9", ipv6Prefix: 64) == "2001:db8:1:2::/64")
        #expect(RequestOrigin.limitKey(of: "2001:db8:1:3::1", ipv6Prefix: 64) == "2001:db8:1:3::/64")
        #expect(RequestOrigin.limitKey(of: "2001:db8:1:2ff::1", ipv6Prefix: 56) == "2001:db8:1:200::/56")
        #expect(RequestOrigin.limitKey(of: "2001:db8::1", ipv6Prefix: 128) == "2001:db8::1/128")
        #expect(RequestOrigin.limitKey(of: "::ffff:192.0.2.7", ipv6Prefix: 64) == "192.0.2.7")
        #expect(RequestOrigin.limitKey(of: "192.0.2.7", ipv6Prefix: 64) == "192.0.2.7")
        #expect(RequestOrigin.limitKey(of: "unknown", ipv6Prefix: 64) == "unknown")
    }

    @Test("Forwarded (RFC 7239): the nearest proxy's element names the client and the scheme")
    func forwardedHeader() {
        let plain = RequestOrigin.forwarded("for=192.0.2.60;proto=https;by=203.0.113.43")
        #expect(plain?.client == "192.0.2.60")
        #expect(plain?.proto == "https")
        #expect(RequestOrigin.forwarded(#"For="[2001:db8:cafe::17]:4711""#)?.client == "2001:db8:cafe::17")
        #expect(RequestOrigin.forwarded("for=192.0.2.60:8080")?.client == "192.0.2.60")
        // Several hops: the last element is the one the trusted proxy wrote.
        let hops = RequestOrigin.forwarded("for=198.51.100.1;proto=http, for=192.0.2.61;proto=HTTPS")
        #expect(hops?.client == "192.0.2.61")
        #expect(hops?.proto == "https")
        #expect(RequestOrigin.forwarded("for=unknown;proto=https")?.client == nil)
        #expect(RequestOrigin.forwarded("for=_hidden")?.client == nil)
        #expect(RequestOrigin.forwarded(nil) == nil)
    }

    @Test("behind a trusted proxy that sends Forwarded: proto=https makes the cookie Secure")
    func forwardedTLSProxy() async throws {
        try await TestApp.run(configure: { $0.trustProxy = true }) { app in
            let page = try await app.get("/", headers: [("Forwarded", "for=192.0.2.9;proto=https")])
            #expect(SetCookie(page)?.attributes["secure"] != nil, "\(page.headers["Set-Cookie"])")
            #expect(page.header("Strict-Transport-Security") == "max-age=31536000")
        }
    }
}
