import Hummingbird
import Testing

@testable import ServerMachinery

@Suite("StaticAsset Accept-Encoding negotiation")
struct StaticAssetNegotiationTests {
    @Test(
        "picks the coding by q-value, with gzip winning ties",
        arguments: [
            (nil, ContentCoding.identity),
            ("", .identity),
            ("gzip", .gzip),
            ("x-gzip", .gzip),
            ("gzip, deflate, br, zstd", .gzip),
            ("deflate, br", .identity),
            ("gzip;q=0", .identity),
            ("gzip; q=0.000", .identity),
            ("identity", .identity),
            ("*", .gzip),
            ("*;q=0.5", .gzip),
            ("*, gzip;q=0", .identity),
            ("gzip;q=0.5, identity;q=0.8", .identity),
            ("gzip;q=0.8, identity;q=0.5", .gzip),
            ("identity;q=0.5, gzip;q=0.5", .gzip),
            ("gzip;q=0.001", .identity),
            ("gzip;q=0.002, identity;q=0.001", .gzip),
            (" GZip ;Q=1.0 ", .gzip),
            ("gzip;q=1.5", .identity),
            ("gzip;q=abc", .identity),
            ("gzip;q=0.5, *;q=0", .gzip),
        ] as [(String?, ContentCoding)]
    )
    func preferred(acceptEncoding: String?, expected: ContentCoding) {
        #expect(StaticAssetMiddleware<BasicRequestContext>.negotiate(acceptEncoding: acceptEncoding) == expected)
        #expect(ContentCoding.negotiate(acceptEncoding: acceptEncoding) == expected)
    }

    @Test(
        "nothing acceptable means 406",
        arguments: ["identity;q=0", "*;q=0", "gzip;q=0, identity;q=0", "br, identity;q=0", "deflate;q=1, *;q=0"]
    )
    func notAcceptable(acceptEncoding: String) {
        #expect(ContentCoding.negotiate(acceptEncoding: acceptEncoding) == nil)
    }

    @Test("without a gzip variant identity is the only candidate")
    func noGzipVariant() {
        #expect(ContentCoding.negotiate(acceptEncoding: "gzip", gzipAvailable: false) == .identity)
        #expect(ContentCoding.negotiate(acceptEncoding: "*", gzipAvailable: false) == .identity)
        #expect(ContentCoding.negotiate(acceptEncoding: "gzip, identity;q=0", gzipAvailable: false) == nil)
        #expect(ContentCoding.negotiate(acceptEncoding: "gzip, identity;q=0", gzipAvailable: true) == .gzip)
    }

    @Test(
        "If-None-Match: exact, list, weak and wildcard forms",
        arguments: [
            ("\"abc\"", true),
            ("W/\"abc\"", true),
            ("\"x\", \"abc\"", true),
            ("\"x\",W/\"abc\"", true),
            ("*", true),
            ("\"abc-gzip\"", false),
            ("\"ab\"", false),
            ("abc", false),
            ("\"x,abc\"", false),
            ("", false),
        ]
    )
    func ifNoneMatch(header: String, matches: Bool) {
        #expect(StaticAssetMiddleware<BasicRequestContext>.ifNoneMatch(header, matches: "\"abc\"") == matches)
    }

    @Test("the common Accept-Encoding values are answered from a table that agrees with the parse")
    func commonValuesFromTheTable() {
        let values = ContentCoding.commonAcceptEncodings + ["gzip;q=0", "br", "identity;q=0, *;q=0", "GZIP"]
        for value in values {
            for gzipAvailable in [false, true] {
                #expect(
                    ContentCoding.negotiate(acceptEncoding: value, gzipAvailable: gzipAvailable)
                        == ContentCoding.parsedNegotiation(acceptEncoding: value, gzipAvailable: gzipAvailable),
                    "\(value) \(gzipAvailable)")
            }
        }
        #expect(ContentCoding.negotiate(acceptEncoding: "gzip, deflate, br", gzipAvailable: true) == .gzip)
        #expect(ContentCoding.negotiate(acceptEncoding: "gzip, deflate, br", gzipAvailable: false) == .identity)
        #expect(ContentCoding.negotiate(acceptEncoding: "identity", gzipAvailable: true) == .identity)
    }
}
