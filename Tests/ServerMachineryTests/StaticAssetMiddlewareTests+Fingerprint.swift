import CompressNIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import TestSupport
import Testing

@testable import ServerMachinery

/// Cache-busting: every file is also served under a name that changes with its contents, cached
/// for a year as immutable, while the plain name is still answered as before.
extension StaticAssetMiddlewareTests {
    @Test(
        "a fingerprinted name serves the same bytes, immutable for a year; the plain name as before", arguments: setups)
    func fingerprinted(setup: TestingSetup) async throws {
        try await StaticAssetFixture.with { fixture in
            let catalog = try fixture.catalog()
            let url = try #require(catalog.url(for: "css/site.css"))
            #expect(url.wholeMatch(of: /\/css\/site\.[0-9a-f]{16}\.css/) != nil, "\(url)")
            #expect(catalog.url(for: "no-such.css") == nil)
            #expect(catalog.count == 4, "aliases are not files of their own")
            try await fixture.application(cacheControl: "public, max-age=60").test(setup) { client in
                let current = try await client.execute(uri: url, method: .get, headers: [.acceptEncoding: "gzip"])
                #expect(current.status == .ok)
                #expect(current.headers[.cacheControl] == "public, max-age=31536000, immutable")
                #expect(current.headers[.contentEncoding] == "gzip")
                #expect(current.headers[.contentType] == "text/css; charset=utf-8")
                var body = current.body
                #expect(String(buffer: try body.decompress(with: .gzip())) == StaticAssetFixture.largeCSS)
                let plain = try await client.execute(uri: "/css/site.css", method: .get)
                #expect(plain.status == .ok)
                #expect(plain.headers[.cacheControl] == "public, max-age=60")
                // A name whose hash is not the file's is not the file.
                let stale = try await client.execute(uri: "/css/site.0000000000000000.css", method: .get)
                #expect(stale.status == .notFound)
            }
        }
    }
}
