import CompressNIO
import LuthierDomain
import LuthierFeatures
import NIOCore
import TestSupport
import Testing

@testable import LuthierWeb

/// The guitars' pictures over real HTTP: a page names each by an address of its own, which
/// answers the picture for good (immutable, compressed for a browser that accepts gzip, under a
/// policy of its own); an address of another drawing, or of no guitar, is not found.
@Suite("Guitar pictures over HTTP")
struct GuitarPictureControllerTests {
    @Test("the picture a page names is served for good, plain or compressed, under its own policy")
    func aPageNamesItsPictureWhichIsServedForGood() async throws {
        try await TestApp.run { app in
            let page = try await app.get("/")
            let match = try #require(page.text.firstMatch(of: /<img class="guitar-artwork" src="([^"]+)"/))
            let path = String(match.output.1)
            #expect(path == GuitarArtwork(guitar: .standard).path)

            let plain = try await app.get(path)
            #expect(plain.status == 200)
            #expect(plain.header("Content-Type") == "image/svg+xml")
            #expect(plain.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(plain.header("Content-Security-Policy") == "default-src 'none'; style-src 'unsafe-inline'")
            #expect(plain.header("X-Content-Type-Options") == "nosniff")
            #expect(plain.header("Vary") == "Accept-Encoding")
            #expect(plain.text == GuitarArtwork(guitar: .standard).svg)

            let compressed = try await app.get(path, headers: [("Accept-Encoding", "gzip")])
            #expect(compressed.header("Content-Encoding") == "gzip")
            #expect(compressed.body.count * 3 < plain.body.count, "\(compressed.body.count) of \(plain.body.count)")
            var body = ByteBuffer(bytes: compressed.body)
            #expect(String(buffer: try body.decompress(with: .gzip())) == plain.text)
        }
    }

    @Test(
        "an address of another drawing or of no guitar is not found, with a sentence",
        arguments: [
            "/guitars/casual-natural-mahogany-rosewood.0000000000000000.svg", "/guitars/casual-natural-mahogany.svg",
            "/guitars/casual-natural-oak-rosewood.0bdba516ae6f6666.svg", "/guitars/%2e%2e",
        ])
    func anotherAddressIsNotFound(path: String) async throws {
        try await TestApp.run { app in
            let answer = try await app.get(path)
            #expect(answer.status == 404)
            #expect(answer.text.contains("No guitar picture at this address"), "\(answer.text)")
            #expect(answer.header("Cache-Control") == "no-store")
        }
    }

    @Test("a builder change's patch names the new picture by its address: the drawing is not in it")
    func aChangesPatchCarriesTheAddressNotTheDrawing() async throws {
        try await TestApp.run { app in
            let cookie = try await app.newSession()
            #expect(try await app.post("/build", form: "color=sky", cookie: cookie).status == 303)
            let page = try await app.get(cookie: cookie)
            let sky = GuitarArtwork(guitar: Guitar(color: .sky))
            #expect(page.text.contains(sky.image))
            #expect(!page.text.contains("<svg"))
            #expect(try await app.get(sky.path).status == 200)
        }
    }
}
