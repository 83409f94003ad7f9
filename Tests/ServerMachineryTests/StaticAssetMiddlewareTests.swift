import CompressNIO
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import ServerMachinery

@Suite("StaticAssetMiddleware")
struct StaticAssetMiddlewareTests {
    static let setups: [TestingSetup] = [.router, .live]

    private static func gunzip(_ buffer: ByteBuffer) throws -> String {
        var compressed = buffer
        let plain = try compressed.decompress(with: .gzip())
        return String(buffer: plain)
    }

    @Test("gzip variant: exact bytes after decompression, and the full header set", arguments: setups)
    func gzipResponse(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application(cacheControl: "public, max-age=60").test(setup) { client in
                let response = try await client.execute(
                    uri: "/css/site.css",
                    method: .get,
                    headers: [.acceptEncoding: "gzip, deflate, br"]
                )
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == "gzip")
                #expect(response.headers[.vary] == "Accept-Encoding")
                #expect(response.headers[.cacheControl] == "public, max-age=60")
                #expect(response.headers[.contentType] == "text/css; charset=utf-8")
                #expect(response.headers[.lastModified]?.hasSuffix(" GMT") == true)
                #expect(response.headers[.contentLength] == String(response.body.readableBytes))
                #expect(response.body.readableBytes < StaticAssetFixture.largeCSS.utf8.count)
                #expect(try Self.gunzip(response.body) == StaticAssetFixture.largeCSS)
                let etag = try #require(response.headers[.eTag])
                #expect(etag.hasPrefix("\"") && etag.hasSuffix("-gzip\""))
            }
        }
    }

    @Test("identity variant: raw bytes, still Vary, and an ETag distinct from gzip's", arguments: setups)
    func identityResponse(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(setup) { client in
                let plain = try await client.execute(uri: "/css/site.css", method: .get)
                let gzipped = try await client.execute(
                    uri: "/css/site.css",
                    method: .get,
                    headers: [.acceptEncoding: "gzip"]
                )
                #expect(plain.status == .ok)
                #expect(plain.headers[.contentEncoding] == nil)
                #expect(plain.headers[.vary] == "Accept-Encoding")
                #expect(plain.headers[.cacheControl] == "public, max-age=3600")
                #expect(plain.headers[.contentLength] == String(StaticAssetFixture.largeCSS.utf8.count))
                #expect(String(buffer: plain.body) == StaticAssetFixture.largeCSS)
                let plainTag = try #require(plain.headers[.eTag])
                let gzipTag = try #require(gzipped.headers[.eTag])
                #expect(plainTag != gzipTag)
                #expect(plain.headers[.lastModified] == gzipped.headers[.lastModified])
            }
        }
    }

    @Test(
        "Accept-Encoding negotiation end to end",
        arguments: [
            ("gzip;q=0", nil),
            ("identity", nil),
            ("gzip;q=0.4, identity;q=0.9", nil),
            ("identity;q=0.4, gzip;q=0.9", "gzip"),
            ("*", "gzip"),
            ("br", nil),
            ("GZIP", "gzip"),
        ] as [(String, String?)]
    )
    func negotiationOverHTTP(acceptEncoding: String, expectedEncoding: String?) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(.router) { client in
                let response = try await client.execute(
                    uri: "/css/site.css",
                    method: .get,
                    headers: [.acceptEncoding: acceptEncoding]
                )
                #expect(response.status == .ok)
                #expect(response.headers[.contentEncoding] == expectedEncoding)
                let body = expectedEncoding == nil ? String(buffer: response.body) : try Self.gunzip(response.body)
                #expect(body == StaticAssetFixture.largeCSS)
            }
        }
    }

    @Test("406 when neither gzip nor identity is acceptable", arguments: setups)
    func notAcceptable(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(setup) { client in
                for header in ["identity;q=0", "gzip;q=0, identity;q=0", "*;q=0", "br, identity;q=0"] {
                    let response = try await client.execute(
                        uri: "/css/site.css",
                        method: .get,
                        headers: [.acceptEncoding: header]
                    )
                    #expect(response.status == .notAcceptable, "\(header)")
                    #expect(response.headers[.vary] == "Accept-Encoding", "\(header)")
                    #expect(
                        String(buffer: response.body)
                            == "This file is sent compressed with gzip or as it is, and Accept-Encoding refuses both.\n",
                        "\(header)")
                }
                // The same exclusion of identity is fine as long as gzip is wanted.
                let gzip = try await client.execute(
                    uri: "/css/site.css",
                    method: .get,
                    headers: [.acceptEncoding: "gzip, identity;q=0"]
                )
                #expect(gzip.status == .ok)
                #expect(gzip.headers[.contentEncoding] == "gzip")
                // A file without a gzip variant cannot satisfy "identity;q=0" either.
                let tiny = try await client.execute(
                    uri: "/tiny.txt",
                    method: .get,
                    headers: [.acceptEncoding: "gzip, identity;q=0"]
                )
                #expect(tiny.status == .notAcceptable)
                #expect(
                    String(buffer: tiny.body) == "This file is sent only as it is, and Accept-Encoding refuses that.\n")
            }
        }
    }

    @Test("If-None-Match answers 304 per encoding's ETag, with list, weak and * forms", arguments: setups)
    func conditionalRequests(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(setup) { client in
                for acceptEncoding in ["gzip", "identity"] {
                    let first = try await client.execute(
                        uri: "/css/site.css",
                        method: .get,
                        headers: [.acceptEncoding: acceptEncoding]
                    )
                    let etag = try #require(first.headers[.eTag])
                    for ifNoneMatch in [etag, "\"nope\", \(etag)", "W/\(etag)", "*"] {
                        let again = try await client.execute(
                            uri: "/css/site.css",
                            method: .get,
                            headers: [.acceptEncoding: acceptEncoding, .ifNoneMatch: ifNoneMatch]
                        )
                        #expect(again.status == .notModified, "\(acceptEncoding) \(ifNoneMatch)")
                        #expect(again.headers[.eTag] == etag)
                        #expect(again.headers[.vary] == "Accept-Encoding")
                        #expect(again.headers[.cacheControl] == "public, max-age=3600")
                        #expect(again.body.readableBytes == 0)
                    }
                    let stale = try await client.execute(
                        uri: "/css/site.css",
                        method: .get,
                        headers: [.acceptEncoding: acceptEncoding, .ifNoneMatch: "\"stale\""]
                    )
                    #expect(stale.status == .ok)
                }
                // The identity ETag must not validate the gzip representation (and vice versa).
                let identityTag = try #require(
                    try await client.execute(uri: "/css/site.css", method: .get).headers[.eTag]
                )
                let crossed = try await client.execute(
                    uri: "/css/site.css",
                    method: .get,
                    headers: [.acceptEncoding: "gzip", .ifNoneMatch: identityTag]
                )
                #expect(crossed.status == .ok)
                #expect(crossed.headers[.contentEncoding] == "gzip")
            }
        }
    }

    @Test("HEAD returns the representation's headers and no body", arguments: setups)
    func head(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(setup) { client in
                let get = try await client.execute(
                    uri: "/css/site.css",
                    method: .get,
                    headers: [.acceptEncoding: "gzip"]
                )
                let head = try await client.execute(
                    uri: "/css/site.css",
                    method: .head,
                    headers: [.acceptEncoding: "gzip"]
                )
                #expect(head.status == .ok)
                #expect(head.body.readableBytes == 0)
                #expect(head.headers[.contentEncoding] == "gzip")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes))
                #expect(head.headers[.eTag] == get.headers[.eTag])
                let plainHead = try await client.execute(uri: "/css/site.css", method: .head)
                #expect(plainHead.headers[.contentLength] == String(StaticAssetFixture.largeCSS.utf8.count))
                #expect(plainHead.body.readableBytes == 0)
            }
        }
    }

    @Test("tiny files and PNGs are never gzipped and carry no Vary", arguments: setups)
    func neverGzipped(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(setup) { client in
                let tiny = try await client.execute(
                    uri: "/tiny.txt",
                    method: .get,
                    headers: [.acceptEncoding: "gzip"]
                )
                #expect(tiny.status == .ok)
                #expect(tiny.headers[.contentEncoding] == nil)
                #expect(tiny.headers[.vary] == nil)
                #expect(tiny.headers[.contentType] == "text/plain; charset=utf-8")
                #expect(String(buffer: tiny.body) == StaticAssetFixture.tinyText)

                let png = try await client.execute(
                    uri: "/logo.png",
                    method: .get,
                    headers: [.acceptEncoding: "gzip"]
                )
                #expect(png.status == .ok)
                #expect(png.headers[.contentEncoding] == nil)
                #expect(png.headers[.contentType] == "image/png")
                #expect(png.body == ByteBuffer(bytes: StaticAssetFixture.pngBytes))
            }
        }
    }

    @Test(
        "traversal attempts end in 404 and never leak a file",
        arguments: [
            "/../Package.swift", "/../outside.txt", "/%2e%2e/outside.txt", "/%2E%2E/x", "/css/..%2fsecret.txt",
            "/css/%2e%2e/secret.txt", "/css/../secret.txt", "/css/..%5csecret.txt",
            "/secret.txt%00", "/./secret.txt", "//secret.txt", "/.env",
        ]
    )
    func traversal(path: String) async throws {
        for setup in Self.setups {
            try await StaticAssetFixture.with { fixture in
                try await fixture.application().test(setup) { client in
                    let response = try await client.execute(uri: path, method: .get)
                    #expect(response.status == .notFound, "\(path) via \(setup)")
                    let body = String(buffer: response.body)
                    #expect(!body.contains("OUTSIDE"), "\(path)")
                    #expect(!body.contains("reachable only"), "\(path)")
                }
            }
        }
    }

    /// A raw backslash is not a legal request-target character, so HTTP clients refuse to send it: router only.
    @Test("a raw backslash path is not served")
    func backslash() async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(.router) { client in
                let response = try await client.execute(uri: "/css\\..\\secret.txt", method: .get)
                #expect(response.status == .notFound)
                #expect(!String(buffer: response.body).contains("reachable only"))
            }
        }
    }

    @Test("the secret file itself is served by its honest name (so the traversal tests are meaningful)")
    func honestPathServed() async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(.router) { client in
                let response = try await client.execute(uri: "/secret.txt?v=1", method: .get)
                #expect(response.status == .ok)
                #expect(String(buffer: response.body) == StaticAssetFixture.secretText)
            }
        }
    }

    @Test("unknown paths and other methods fall through to the router", arguments: setups)
    func fallsThrough(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(setup) { client in
                let missing = try await client.execute(uri: "/css/missing.css", method: .get)
                #expect(missing.status == .notFound)
                #expect(missing.headers[.eTag] == nil)
                let post = try await client.execute(
                    uri: "/css/site.css",
                    method: .post,
                    body: ByteBuffer(string: "x")
                )
                #expect(post.status != .ok)
                #expect(post.headers[.eTag] == nil)
            }
        }
    }

    @Test("other routes' responses are untouched: the event stream is never compressed", arguments: setups)
    func eventStreamUntouched(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            try await fixture.application().test(setup) { client in
                let response = try await client.execute(
                    uri: "/events",
                    method: .get,
                    headers: [.acceptEncoding: "gzip, deflate, br"]
                )
                #expect(response.status == .ok)
                #expect(response.headers[.contentType] == "text/event-stream")
                #expect(response.headers[.contentEncoding] == nil)
                #expect(response.headers[.vary] == nil)
                #expect(response.headers[.eTag] == nil)
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(String(buffer: response.body) == StaticAssetFixture.eventBody)
            }
        }
    }
}
