import CompressNIO
import Foundation
import NIOCore
import TestSupport
import Testing

@testable import ServerMachinery

@Suite("StaticAssetCatalog")
struct StaticAssetCatalogTests {
    @Test("loads every regular file, including subfolders, and skips hidden files")
    func loadsFolder() throws {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        let catalog = try fixture.catalog()
        #expect(catalog.relativePaths == ["css/site.css", "logo.png", "secret.txt", "tiny.txt"])
        #expect(catalog.count == 4)
        #expect(catalog.asset(forRequestPath: "/.env") == nil)
    }

    @Test("the files are read once: later changes on disk are not served")
    func readOnce() throws {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        let catalog = try fixture.catalog()
        try Data("changed\n".utf8).write(to: fixture.publicDirectory.appendingPathComponent("tiny.txt"))
        let asset = try #require(catalog.asset(forRequestPath: "/tiny.txt"))
        #expect(String(buffer: asset.identity.body) == StaticAssetFixture.tinyText)
    }

    @Test("gzip variant only for large compressible files, and it decompresses to the original")
    func gzipVariants() throws {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        let catalog = try fixture.catalog()
        let css = try #require(catalog.asset(forRequestPath: "/css/site.css"))
        var gzipped = try #require(css.gzip).body
        #expect(gzipped.readableBytes < css.identity.body.readableBytes)
        #expect(String(buffer: try gzipped.decompress(with: .gzip())) == StaticAssetFixture.largeCSS)
        #expect(css.gzip?.etag == String(css.identity.etag.dropLast()) + "-gzip\"")
        #expect(css.representation(for: .gzip).etag != css.representation(for: .identity).etag)

        #expect(try #require(catalog.asset(forRequestPath: "/tiny.txt")).gzip == nil)
        #expect(try #require(catalog.asset(forRequestPath: "/logo.png")).gzip == nil)
        // Lowering the threshold makes the tiny text file eligible, but gzip would make it bigger: still none.
        let eager = try StaticAssetCatalog(directory: fixture.publicDirectory.path, minimumGzipSize: 0)
        #expect(try #require(eager.asset(forRequestPath: "/tiny.txt")).gzip == nil)
        #expect(try #require(eager.asset(forRequestPath: "/css/site.css")).gzip != nil)
        // Raising it above the stylesheet's size turns its variant off.
        let reluctant = try StaticAssetCatalog(directory: fixture.publicDirectory.path, minimumGzipSize: 1 << 20)
        #expect(try #require(reluctant.asset(forRequestPath: "/css/site.css")).gzip == nil)
    }

    @Test("ETags are strong, content-derived and stable")
    func etags() throws {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        let first = try fixture.catalog()
        let second = try fixture.catalog()
        let css = try #require(first.asset(forRequestPath: "/css/site.css"))
        #expect(css.identity.etag == second.asset(forRequestPath: "/css/site.css")?.identity.etag)
        #expect(css.identity.etag != first.asset(forRequestPath: "/secret.txt")?.identity.etag)
        #expect(css.identity.etag.hasPrefix("\"") && css.identity.etag.hasSuffix("\""))
        #expect(!css.identity.etag.hasPrefix("W/"))
        // FNV-1a 64 reference values.
        #expect(StaticAssetCatalog.fnv1a64Hex(ByteBuffer()) == "cbf29ce484222325")
        #expect(StaticAssetCatalog.fnv1a64Hex(ByteBuffer(string: "a")) == "af63dc4c8601ec8c")
    }

    @Test(
        "media types by extension",
        arguments: [
            ("/css/site.css", "text/css; charset=utf-8"),
            ("/tiny.txt", "text/plain; charset=utf-8"),
            ("/logo.png", "image/png"),
        ]
    )
    func mediaTypes(path: String, contentType: String) throws {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        #expect(try fixture.catalog().asset(forRequestPath: path)?.contentType == contentType)
    }

    @Test("Last-Modified is an IMF-fixdate")
    func httpDate() {
        #expect(
            StaticAssetCatalog.httpDate(Date(timeIntervalSince1970: 784_111_777)) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(StaticAssetCatalog.httpDate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(
            StaticAssetCatalog.httpDate(Date(timeIntervalSince1970: 1_709_208_000.9)) == "Thu, 29 Feb 2024 12:00:00 GMT"
        )
    }

    @Test(
        "unsafe request paths never produce a key",
        arguments: [
            "", "/", "css/site.css", "/../x", "/css/../secret.txt", "/%2e%2e/x", "/%2E%2e/x", "/css/..%2fsecret.txt",
            "/css/..%2Fsecret.txt", "/css%5c..%5csecret.txt", "/css\\site.css", "/a%00", "/a\u{0}", "/./a", "/a/.",
            "//a", "/a//b", "/a/", "/%zz", "/%2", "/%ff",
        ]
    )
    func unsafeKeys(path: String) {
        #expect(StaticAssetCatalog.catalogKey(forRequestPath: path) == nil)
    }

    @Test(
        "safe request paths decode to catalog keys",
        arguments: [("/css/site.css", "css/site.css"), ("/a%20b.txt", "a b.txt"), ("/%C3%A9.css", "é.css")]
    )
    func safeKeys(path: String, key: String) {
        #expect(StaticAssetCatalog.catalogKey(forRequestPath: path) == key)
    }

    @Test("symbolic links are not served, even to files inside the folder")
    func symlinksSkipped() throws {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        try FileManager.default.createSymbolicLink(
            atPath: fixture.publicDirectory.appendingPathComponent("escape.txt").path,
            withDestinationPath: fixture.base.appendingPathComponent("outside.txt").path
        )
        let catalog = try fixture.catalog()
        #expect(catalog.asset(forRequestPath: "/escape.txt") == nil)
        #expect(catalog.count == 4)
    }

    @Test("a missing or non-directory root fails loudly, naming the path")
    func loadErrors() throws {
        let fixture = try StaticAssetFixture()
        defer { fixture.remove() }
        let missing = fixture.base.appendingPathComponent("NoSuchFolder").path
        let missingError = #expect(throws: StaticAssetCatalog.LoadError.self) {
            try StaticAssetCatalog(directory: missing)
        }
        #expect(missingError == .directoryMissing(path: missing))
        #expect(missingError?.description.contains(missing) == true)

        let file = fixture.base.appendingPathComponent("outside.txt").path
        let fileError = #expect(throws: StaticAssetCatalog.LoadError.self) {
            try StaticAssetCatalog(directory: file)
        }
        #expect(fileError == .notADirectory(path: file))
    }
}
