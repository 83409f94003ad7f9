import CompressNIO
import NIOCore

/// A gzip stream put together from deflate segments (RFC 1952): a header, the segments in
/// order, an empty last block, and the trailer with the CRC-32 and length of everything.
enum GzipBody {
    /// No file name, no time, the "unknown" system.
    static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]
    /// An empty block of fixed codes marked last (BFINAL 1, BTYPE 01, end of block).
    static let lastBlock: [UInt8] = [0x03, 0x00]

    /// The buffers of the stream holding `segments`' contents in order, whose checksum is `crc`
    /// and length `length` (worked out by the caller, who may have it ready).
    static func buffers(_ segments: [ByteBuffer], crc: UInt32, length: Int) -> [ByteBuffer] {
        var head = ByteBufferAllocator().buffer(capacity: header.count)
        head.writeBytes(header)
        var tail = ByteBufferAllocator().buffer(capacity: lastBlock.count + 8)
        tail.writeBytes(lastBlock)
        tail.writeInteger(crc, endianness: .little)
        tail.writeInteger(UInt32(truncatingIfNeeded: length), endianness: .little)
        return [head] + segments + [tail]
    }

    /// `segments` joined into one stream.
    static func buffers(_ segments: [DeflateSegment]) -> [ByteBuffer] {
        var crc: UInt32 = 0
        var length = 0
        for segment in segments {
            crc = CRC32.combine(crc, segment.crc, secondLength: segment.length)
            length += segment.length
        }
        return buffers(segments.map(\.deflated), crc: crc, length: length)
    }

    /// `bytes` compressed at once, for an answer that is not cached (an error page, a trace).
    static func compressing(_ bytes: ByteBuffer) throws -> [ByteBuffer] {
        buffers([try DeflateSegment(compressing: bytes)])
    }
}
