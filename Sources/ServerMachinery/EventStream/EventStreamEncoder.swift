import NIOCore

/// How a stream's events go on the wire: as they are, or, for a client that accepts gzip, as one
/// gzip stream made of each event's shared deflate segment.
///
/// Each segment ends with a sync flush, so every event can be read as soon as it arrives, and
/// refers to nothing before it, so the same compressed patch serves every stream that sends it.
/// A stream keeps no compressor: only the running checksum and length its trailer needs.
package struct EventStreamEncoder {
    private var contents = GzipBody.Contents()
    package let isCompressed: Bool

    package init(compressed: Bool) {
        isCompressed = compressed
    }

    /// What goes first: the gzip header, or nothing.
    package func opening() -> ByteBuffer? {
        isCompressed ? GzipBody.opening() : nil
    }

    /// A patch event, compressed once for every stream that sends it.
    package mutating func encode(_ patch: EncodedPatch) -> ByteBuffer {
        guard isCompressed else { return patch.bytes }
        return contents.append(patch.segment)
    }

    /// A short event (a heartbeat, a navigation, the retry hint), stored: compressing a few
    /// bytes would cost more than it saves.
    package mutating func encode(_ text: String) -> ByteBuffer {
        guard isCompressed else { return ByteBuffer(string: text) }
        return contents.append(DeflateSegment(storing: Array(text.utf8)))
    }

    /// What ends the stream: the last block and the trailer, or nothing.
    package func closing() -> ByteBuffer? {
        isCompressed ? contents.closing : nil
    }
}
