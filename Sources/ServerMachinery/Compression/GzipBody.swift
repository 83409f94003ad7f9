import NIOCore

/// A gzip stream put together from deflate segments (RFC 1952): a header, the segments in
/// order, an empty last block, and the trailer with the CRC-32 and length of everything. A page's
/// answer is one such stream at once; an event stream writes the same parts as it goes.
package enum GzipBody {
    /// No file name, no time, the "unknown" system.
    private static let header: [UInt8] = [0x1F, 0x8B, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xFF]
    /// An empty block of fixed codes marked last (BFINAL 1, BTYPE 01, end of block).
    private static let lastBlock: [UInt8] = [0x03, 0x00]

    /// What a gzip stream starts with.
    package static func opening() -> ByteBuffer {
        ByteBuffer(bytes: header)
    }

    /// What ends a stream whose contents (all its segments together) have checksum `crc` and
    /// `length` bytes: the last block and the trailer.
    package static func closing(crc: UInt32, length: Int) -> ByteBuffer {
        var tail = ByteBufferAllocator().buffer(capacity: lastBlock.count + 8)
        writeClosing(crc: crc, length: length, into: &tail)
        return tail
    }

    private static func writeClosing(crc: UInt32, length: Int, into buffer: inout ByteBuffer) {
        buffer.writeBytes(lastBlock)
        buffer.writeInteger(crc, endianness: .little)
        buffer.writeInteger(UInt32(truncatingIfNeeded: length), endianness: .little)
    }

    /// What the trailer needs of the segments written so far: their CRC-32, combined from each
    /// segment's own, and their length. A page's answer counts its segments at once; an event
    /// stream counts each event as it writes it.
    package struct Contents {
        private(set) var crc: UInt32 = 0
        private(set) var length = 0

        /// Counts `segment` and returns its bytes to write.
        package mutating func append(_ segment: DeflateSegment) -> ByteBuffer {
            crc = CRC32.combine(crc, segment.crc, secondLength: segment.length)
            length += segment.length
            return segment.deflated
        }

        /// The last block and the trailer for what was counted.
        package var closing: ByteBuffer { GzipBody.closing(crc: crc, length: length) }
    }

    /// `segments` joined into one stream, in one buffer: an answer's body written as one part
    /// goes through the channel's handlers once (three parts cost a page about a tenth of its rate).
    package static func joined(_ segments: [DeflateSegment]) -> ByteBuffer {
        let size = header.count + segments.reduce(0) { $0 + $1.deflated.readableBytes } + lastBlock.count + 8
        var body = ByteBufferAllocator().buffer(capacity: size)
        var contents = Contents()
        body.writeBytes(header)
        for segment in segments { body.writeImmutableBuffer(contents.append(segment)) }
        writeClosing(crc: contents.crc, length: contents.length, into: &body)
        return body
    }

    /// A cached page's answer in one buffer: `head`, then `inserted` (the few bytes that differ
    /// per answer) stored as they are, then `tail`. The checksum goes on from the head's through
    /// the inserted bytes and is carried over the tail by `tail`'s `Appending`, made once per
    /// page: nothing per answer costs more than copying the bytes.
    package static func joined(
        _ head: DeflateSegment, inserting inserted: [UInt8], _ tail: DeflateSegment, appendingTail: CRC32.Appending
    ) -> ByteBuffer {
        let size =
            header.count + head.deflated.readableBytes + DeflateSegment.storedSize(inserted.count)
            + tail.deflated.readableBytes + lastBlock.count + 8
        var body = ByteBufferAllocator().buffer(capacity: size)
        body.writeBytes(header)
        body.writeImmutableBuffer(head.deflated)
        DeflateSegment.writeStored(inserted, into: &body)
        body.writeImmutableBuffer(tail.deflated)
        let crc = appendingTail.combine(CRC32.checksum(inserted, continuing: head.crc), tail.crc)
        writeClosing(crc: crc, length: head.length + inserted.count + tail.length, into: &body)
        return body
    }

    /// `bytes` compressed at once, for an answer that is not cached (an error page, a trace).
    package static func compressing(_ bytes: ByteBuffer) throws -> ByteBuffer {
        joined([try DeflateSegment(compressing: bytes)])
    }
}
