import NIOCore

/// How a stream's events go on the wire: as they are, or, for a client that accepts gzip, as one
/// gzip stream made of each event's shared deflate segment.
///
/// Each segment ends with a sync flush, so every event can be read as soon as it arrives, and
/// refers to nothing before it, so the same compressed patch serves every stream that sends it.
/// A stream keeps no compressor: only the running checksum and length its trailer needs.
struct EventStreamEncoder {
    private var crc: UInt32 = 0
    private var length = 0
    let isCompressed: Bool

    init(compressed: Bool) {
        isCompressed = compressed
    }

    /// What goes first: the gzip header, or nothing.
    func opening() -> ByteBuffer? {
        isCompressed ? GzipBody.opening() : nil
    }

    /// A patch event, compressed once for every stream that sends it.
    mutating func encode(_ patch: EncodedPatch) -> ByteBuffer {
        guard isCompressed else { return patch.bytes }
        return counted(patch.segment)
    }

    /// A short event (a heartbeat, a navigation, the retry hint), stored: compressing a few
    /// bytes would cost more than it saves.
    mutating func encode(_ text: String) -> ByteBuffer {
        guard isCompressed else { return ByteBuffer(string: text) }
        return counted(DeflateSegment(storing: Array(text.utf8)))
    }

    /// What ends the stream: the last block and the trailer, or nothing.
    func closing() -> ByteBuffer? {
        isCompressed ? GzipBody.closing(crc: crc, length: length) : nil
    }

    private mutating func counted(_ segment: DeflateSegment) -> ByteBuffer {
        crc = CRC32.combine(crc, segment.crc, secondLength: segment.length)
        length += segment.length
        return segment.deflated
    }
}
