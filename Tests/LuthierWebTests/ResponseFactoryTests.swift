import CompressNIO
import NIOCore
import TestSupport
import Testing

@testable import LuthierWeb

/// Compressed answers over real HTTP: a page, a live page with its version, an error page and a
/// trace are gzip-compressed for a client that accepts it and plain for one that does not, with
/// `Vary` either way; a short answer is never compressed.
@Suite("Compressed answers over HTTP")
struct ResponseFactoryTests {
    static let gzip = [("Accept-Encoding", "gzip, deflate, br")]

    static func inflate(_ response: TestHTTPResponse) throws -> String {
        var body = ByteBuffer(bytes: response.body)
        return String(buffer: try body.decompress(with: .gzip()))
    }

    @Test("a live page is compressed for a browser that accepts gzip, and is the same page inflated")
    func livePage() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            let plain = try await app.get(cookie: cookie)
            let compressed = try await app.get(cookie: cookie, headers: Self.gzip)
            #expect(plain.header("Content-Encoding") == nil)
            #expect(plain.header("Vary") == "Accept-Encoding")
            #expect(compressed.header("Content-Encoding") == "gzip")
            #expect(compressed.header("Vary") == "Accept-Encoding")
            #expect(compressed.body.count * 3 < plain.body.count, "\(compressed.body.count) of \(plain.body.count)")
            #expect(try Self.inflate(compressed) == plain.text)
            #expect(plain.text.contains("<body data-version=\""))
        }
    }

    @Test("a visitor's first page, gzip refused with q=0, and an unknown coding")
    func negotiation() async throws {
        try await TestApp.run { app in
            let first = try await app.get(headers: Self.gzip)
            #expect(first.header("Content-Encoding") == "gzip")
            #expect(try Self.inflate(first).contains("Build your guitar"))
            for refused in ["gzip;q=0", "br", "identity"] {
                let response = try await app.get(headers: [("Accept-Encoding", refused)])
                #expect(response.status == 200)
                #expect(response.header("Content-Encoding") == nil, "\(refused)")
                #expect(response.text.contains("Build your guitar"))
            }
        }
    }

    @Test("an error page for a browser is compressed; a short refusal for a script is not")
    func errors() async throws {
        try await TestApp.run { app in
            let page = try await app.get(
                "/no/such/page", headers: Self.gzip + [("Accept", "text/html")])
            #expect(page.status == 404)
            let html = try Self.inflate(page)
            #expect(html.contains("<html"), "\(page)")
            #expect(page.header("Content-Encoding") == "gzip")
            let short = try await app.get("/no/such/page", headers: Self.gzip)
            #expect(short.status == 404)
            #expect(short.header("Content-Encoding") == nil)
            #expect(short.header("Vary") == nil)
            #expect(short.text.hasSuffix("\n"))
        }
    }

    @Test("pages link the stylesheet, scripts, worker and icon by their fingerprinted names, which are cached for ever")
    func fingerprintedLinks() async throws {
        try await TestApp.run { app in
            for path in ["/", "/kiosk"] {
                let page = try await app.get(path)
                let stylesheet = try #require(page.text.firstMatch(of: /href="(\/styles\.[0-9a-f]{16}\.css)"/)?.1)
                #expect(page.text.firstMatch(of: /src="\/app\.[0-9a-f]{16}\.js"/) != nil, "\(path)")
                // The worker loads the stream client the page loads, by the same fingerprinted name.
                let client = try #require(page.text.firstMatch(of: /src="(\/stream-client\.[0-9a-f]{16}\.js)"/)?.1)
                #expect(
                    page.text.contains(
                        try Regex("data-worker=\"/events-worker\\.[0-9a-f]{16}\\.js\\?client=\(client)\"")))
                #expect(page.text.firstMatch(of: /href="\/favicon\.[0-9a-f]{16}\.svg"/) != nil)
                let css = try await app.get(String(stylesheet))
                #expect(css.status == 200)
                #expect(css.header("Cache-Control") == "public, max-age=31536000, immutable")
                #expect(css.text == (try await app.get("/styles.css")).text)
            }
        }
    }
}
