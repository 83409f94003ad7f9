import CompressNIO
import NIOCore
import Testing

@testable import ServerMachinery

/// A gzip stream put together from pieces compressed apart: CRC-32 over parts, deflate segments
/// (compressed and stored) joined in any order, and a cached page's answer with its version, each
/// inflated by zlib (which checks the trailer's checksum and length) back to the plain bytes.
@Suite struct GzipBodyTests {
    static func inflate(_ buffer: ByteBuffer) throws -> String {
        var buffer = buffer
        return String(buffer: try buffer.decompress(with: .gzip()))
    }

    static let page = """
        <!doctype html><html lang="en"><head><title>Luthier</title></head>
        <body class="x">\(String(repeating: "<p>A guitar built by hand, to order.</p>\n", count: 60))</body></html>
        """

    @Test("the checksum is gzip's, and the checksum of parts joined is the checksum of the whole")
    func crc() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        let whole = Array(Self.page.utf8)
        for split in [0, 1, 7, 100, whole.count - 1, whole.count] {
            let first = CRC32.checksum(whole[..<split])
            let second = CRC32.checksum(whole[split...])
            #expect(CRC32.combine(first, second, secondLength: whole.count - split) == CRC32.checksum(whole))
            #expect(CRC32.checksum(whole[split...], continuing: first) == CRC32.checksum(whole))
            let appending = CRC32.Appending(length: whole.count - split)
            #expect(appending.combine(first, second) == CRC32.checksum(whole))
        }
        // One map of appending serves any first part.
        let appending = CRC32.Appending(length: 9)
        for first in ["", "a", Self.page] {
            let crc = CRC32.checksum(Array(first.utf8))
            #expect(appending.combine(crc, 0xCBF4_3926) == CRC32.checksum(Array((first + "123456789").utf8)))
        }
    }

    @Test("a page's head, a few bytes stored, and its tail join into one stream with the whole's checksum")
    func joinedInserting() throws {
        let head = "<!doctype html><body"
        let tail = String(repeating: " class=\"x\"><p>A guitar built by hand.</p>", count: 80)
        let tailSegment = try DeflateSegment(compressing: ByteBuffer(string: tail))
        for inserted in ["", " data-version=\"7\"", String(repeating: "y", count: 70_000)] {
            let body = GzipBody.joined(
                try DeflateSegment(compressing: ByteBuffer(string: head)), inserting: Array(inserted.utf8),
                tailSegment, appendingTail: CRC32.Appending(length: tailSegment.length))
            #expect(try Self.inflate(body) == head + inserted + tail)
        }
    }

    @Test("segments compressed apart, and stored ones, join into one stream")
    func segments() throws {
        let parts = [
            "first part, compressed; ", "second, stored; ", String(repeating: "third, compressed. ", count: 200),
        ]
        let segments = [
            try DeflateSegment(compressing: ByteBuffer(string: parts[0])),
            DeflateSegment(storing: Array(parts[1].utf8)),
            try DeflateSegment(compressing: ByteBuffer(string: parts[2])),
        ]
        #expect(try Self.inflate(GzipBody.joined(segments)) == parts.joined())
        // Stored blocks hold at most 65,535 bytes each.
        let big = String(repeating: "x", count: 150_000)
        #expect(try Self.inflate(GzipBody.joined([DeflateSegment(storing: Array(big.utf8))])) == big)
        #expect(try Self.inflate(GzipBody.compressing(ByteBuffer(string: big))) == big)
    }

    @Test("a cached page's gzip answer is its plain answer, with or without a version")
    func renderedPage() throws {
        let page = RenderedPage(ByteBuffer(string: Self.page))
        #expect(page.split != nil)
        for version in [nil, 0, 7, 4_294_967_296_123] as [Int?] {
            let plain = String(buffer: page.plain(version: version))
            #expect(try Self.inflate(try #require(page.gzipped(version: version))) == plain)
            if let version { #expect(plain.contains("<body data-version=\"\(version)\" class=\"x\">")) }
        }
        // The same version again is the same answer, shared, not put together again; another
        // version in between is put together for itself.
        let address = { (buffer: ByteBuffer) in buffer.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) } }
        let first = try #require(page.gzipped(version: 5))
        #expect(address(try #require(page.gzipped(version: 5))) == address(first))
        let other = try #require(page.gzipped(version: 6))
        #expect(address(other) != address(first))
        #expect(try Self.inflate(other) == String(buffer: page.plain(version: 6)))
        #expect(try Self.inflate(try #require(page.gzipped(version: 5))) == String(buffer: page.plain(version: 5)))
        #expect(try Self.inflate(try #require(page.gzipped(version: nil))) == Self.page)
        let compressed = try #require(page.gzipped(version: 12)).readableBytes
        #expect(compressed * 4 < Self.page.utf8.count, "\(compressed) bytes for \(Self.page.utf8.count)")
        // A page without a body tag has nowhere for a version: it is sent whole.
        let bare = RenderedPage(ByteBuffer(string: "<p>no body tag</p>"))
        #expect(bare.split == nil)
        #expect(try Self.inflate(try #require(bare.gzipped(version: 3))) == "<p>no body tag</p>")
    }
}
