#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the log handlers write their lines: one `write` per line (so that lines from two threads
/// never interleave), and a line that cannot be written (a full disk, a closed pipe) is dropped.
/// `FileHandle.write` traps when a write fails: with the disk full, the first log line took the
/// shop down (`DatabaseFaultTests`' full disk), where the shop must answer 503 and go on.
public enum StandardOutput {
    /// Standard output.
    public static let write: @Sendable (String) -> Void = writer(to: STDOUT_FILENO)

    /// Writes each line whole to `descriptor`, going on after a partial write or an interruption,
    /// and dropping the rest of a line the descriptor refuses.
    public static func writer(to descriptor: Int32) -> @Sendable (String) -> Void {
        { line in
            var line = line
            line.withUTF8 { bytes in
                guard let base = bytes.baseAddress else { return }
                var offset = 0
                while offset < bytes.count {
                    let written = systemWrite(descriptor, base + offset, bytes.count - offset)
                    if written > 0 {
                        offset += written
                    } else if written < 0, errno == EINTR {
                        continue
                    } else {
                        return
                    }
                }
            }
        }
    }

    private static func systemWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        #if canImport(Glibc)
            Glibc.write(descriptor, bytes, count)
        #else
            Darwin.write(descriptor, bytes, count)
        #endif
    }
}
