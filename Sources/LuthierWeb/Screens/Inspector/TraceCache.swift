import Hummingbird
import NIOCore
import ServerMachinery
import Synchronization

/// Each session's trace as last encoded, plain and gzip-compressed, kept per recorded step: a
/// trace is encoded and compressed once per step its session records, however often it is asked
/// for. (Encoded and compressed per request, a full cart's trace cost 1.07 s of CPU each time, and
/// two clients asking in a loop held up every other customer.)
final class TraceCache: Sendable {
    struct Encoded: Sendable {
        let plain: ByteBuffer
        /// Nil when the trace is too short to be worth compressing.
        let gzip: ByteBuffer?
    }

    private struct Entry {
        let version: Int
        let encoded: Encoded
        var lastUsed: UInt64
    }

    /// Traces kept at most: the sessions whose traces were asked for last.
    let capacity: Int
    private let entries = Mutex<(byRecorder: [ObjectIdentifier: Entry], uses: UInt64)>(([:], 0))
    private let encodings = Atomic<Int>(0)

    init(capacity: Int = 32) {
        self.capacity = max(capacity, 1)
    }

    /// The trace of `recorder` at `version` (its recorded steps): the one kept, or `encode()`'s,
    /// compressed once and kept in place of the oldest when full.
    func trace(
        of recorder: AnyObject, version: Int, encode: () throws -> ByteBuffer
    ) throws -> Encoded {
        let key = ObjectIdentifier(recorder)
        let kept = entries.withLock { entries -> Encoded? in
            guard var entry = entries.byRecorder[key], entry.version == version else { return nil }
            entries.uses += 1
            entry.lastUsed = entries.uses
            entries.byRecorder[key] = entry
            return entry.encoded
        }
        if let kept { return kept }
        let plain = try encode()
        encodings.add(1, ordering: .relaxed)
        let gzip =
            plain.readableBytes >= ResponseFactory.compressionThreshold ? try? GzipBody.compressing(plain) : nil
        let encoded = Encoded(plain: plain, gzip: gzip)
        entries.withLock { entries in
            entries.uses += 1
            if entries.byRecorder[key] == nil, entries.byRecorder.count >= capacity,
                let oldest = entries.byRecorder.min(by: { $0.value.lastUsed < $1.value.lastUsed })?.key
            {
                entries.byRecorder[oldest] = nil
            }
            entries.byRecorder[key] = Entry(version: version, encoded: encoded, lastUsed: entries.uses)
        }
        return encoded
    }

    /// Traces encoded since the start (what the tests count).
    var encodingCount: Int { encodings.load(ordering: .relaxed) }
}
