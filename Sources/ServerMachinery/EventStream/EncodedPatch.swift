import NIOCore
import Synchronization

/// A `patch` event as bytes, and the same compressed once as a deflate segment for the streams
/// that accept gzip: every stream that sends it (a session's tabs, a thousand kiosks) shares one
/// encoding and one compression, and no stream keeps a compressor of its own.
package final class EncodedPatch: Sendable {
    package let bytes: ByteBuffer
    private let compressed = Mutex<DeflateSegment??>(nil)

    package init(_ bytes: ByteBuffer) {
        self.bytes = bytes
    }

    /// The event compressed (the first stream to ask compresses it; nil if that failed, and the
    /// event is then sent stored).
    package var segment: DeflateSegment {
        let made = compressed.withLock { compressed -> DeflateSegment? in
            if let done = compressed { return done }
            let segment = try? DeflateSegment(compressing: bytes, level: DeflateSegment.quick)
            compressed = .some(segment)
            return segment
        }
        return made ?? DeflateSegment(storing: bytes.readableBytesView)
    }
}
