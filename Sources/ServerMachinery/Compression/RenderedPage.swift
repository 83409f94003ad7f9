import NIOCore
import Synchronization

/// A whole page as the render cache keeps it: its bytes, and the same compressed in two segments
/// split where an answer writes its version (`data-version` on `<body>`), so that a cached page
/// answers a browser that accepts gzip without compressing anything per answer.
///
/// The segments are made when a client first asks for gzip, once (a second asker waits for the
/// first's), so a client that never asks (a script, a test) costs no compression. The segments
/// and the last gzip answer together hold less than the plain bytes (gzip makes a page about a
/// quarter of its size): the render cache counts a page twice (`heldBytes`).
package final class RenderedPage: Sendable {
    package let bytes: ByteBuffer
    /// The offset just after `<body`, where the version goes; nil for a page without a body tag.
    package let split: Int?
    private let compressed = Mutex<Compression>(.notYet)

    private enum Compression {
        case notYet
        /// The page could not be compressed: it is always sent plain.
        case failed
        /// The segments, and the last gzip answer put together from them.
        case done(Gzipped, last: Answer?)
    }

    /// A gzip answer and the version it carries: asked for again (a reload of a session that did
    /// not change meanwhile, every new visitor's blank page, which carries none), it is the same
    /// bytes, shared rather than copied again.
    private struct Answer {
        package let version: Int?
        package let body: ByteBuffer
    }

    private struct Gzipped {
        package let head: DeflateSegment
        /// The bytes after `split`, apart, and the map of appending them to a checksum; nil when
        /// there is no split.
        package let tail: (segment: DeflateSegment, appending: CRC32.Appending)?
    }

    private static let bodyTag = Array("<body".utf8)

    /// What the page holds at most, as the render cache counts it: its plain bytes, and as much
    /// again for its compressed segments and its last gzip answer.
    package var heldBytes: Int { bytes.readableBytes * 2 }

    package init(_ bytes: ByteBuffer) {
        self.bytes = bytes
        let view = bytes.readableBytesView
        split = view.firstRange(of: Self.bodyTag).map { $0.upperBound - view.startIndex }
    }

    /// The plain answer's body, with ` data-version="N"` on `<body>` when `version` is given.
    ///
    /// One buffer, copied together: a body in parts goes through the channel's handlers once per
    /// part, which cost a page about a tenth of its rate, far more than copying 20 KB.
    package func plain(version: Int?) -> ByteBuffer {
        guard let version, let (head, tail) = halves else { return bytes }
        return ByteBuffer(joining: [head, ByteBuffer(string: Self.attribute(version)), tail])
    }

    /// The gzip answer's body, likewise; nil when the page could not be compressed.
    package func gzipped(version: Int?) -> ByteBuffer? {
        let (gzip, last) = compressed.withLock { state -> (Gzipped?, Answer?) in
            if case .notYet = state { state = (try? compress()).map { .done($0, last: nil) } ?? .failed }
            guard case .done(let gzip, let last) = state else { return (nil, nil) }
            return (gzip, last)
        }
        guard let gzip else { return nil }
        if let last, last.version == version { return last.body }
        let body = Self.joined(gzip, version: version)
        compressed.withLock { state in
            guard case .done(let gzip, _) = state else { return }
            state = .done(gzip, last: Answer(version: version, body: body))
        }
        return body
    }

    private static func joined(_ gzip: Gzipped, version: Int?) -> ByteBuffer {
        guard let tail = gzip.tail else { return GzipBody.joined([gzip.head]) }
        guard let version else { return GzipBody.joined([gzip.head, tail.segment]) }
        return GzipBody.joined(
            gzip.head, inserting: Array(attribute(version).utf8), tail.segment, appendingTail: tail.appending)
    }

    /// The bytes before and after `split`, sharing the page's storage.
    private var halves: (ByteBuffer, ByteBuffer)? {
        guard let split, let head = bytes.getSlice(at: bytes.readerIndex, length: split),
            let tail = bytes.getSlice(at: bytes.readerIndex + split, length: bytes.readableBytes - split)
        else { return nil }
        return (head, tail)
    }

    private func compress() throws -> Gzipped {
        guard let (head, tail) = halves else { return Gzipped(head: try DeflateSegment(compressing: bytes), tail: nil) }
        let tailSegment = try DeflateSegment(compressing: tail)
        return Gzipped(
            head: try DeflateSegment(compressing: head),
            tail: (tailSegment, CRC32.Appending(length: tailSegment.length)))
    }

    private static func attribute(_ version: Int) -> String { " data-version=\"\(version)\"" }
}
