import CompressNIO
import NIOCore

/// Inflates a gzip body piece by piece as it arrives, as a browser does: each sync-flushed piece
/// inflates whole, and a body cut short (a stream closed after its opening) inflates as far as it
/// goes. A wrong checksum or length in the trailer throws.
package final class GzipInflater {
    private let decompressor: ZlibDecompressor

    package init() throws {
        decompressor = try ZlibDecompressor(algorithm: .gzip)
    }

    package func inflate(_ chunk: ByteBuffer) throws -> ByteBuffer {
        var input = chunk
        var output = ByteBuffer()
        while true {
            var piece = ByteBufferAllocator().buffer(capacity: 256 * 1024)
            do {
                try decompressor.inflate(from: &input, to: &piece)
                output.writeBuffer(&piece)
                return output
            } catch let error as CompressNIOError where error == .bufferOverflow {
                output.writeBuffer(&piece)
            } catch let error as CompressNIOError where error == .inputBufferOverflow {
                output.writeBuffer(&piece)
                return output
            }
        }
    }

    /// A whole (or cut-short) gzip body, inflated.
    package static func inflate(_ body: ByteBuffer) throws -> ByteBuffer {
        try GzipInflater().inflate(body)
    }
}
