import Foundation
import Testing

@testable import ServerMachinery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("StandardOutput")
struct StandardOutputTests {
    @Test("each line is written whole, in order")
    func linesWrittenWhole() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("log-\(UUID().uuidString)")
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { unlink(file.path) }
        let write = StandardOutput.writer(to: descriptor)
        let long = String(repeating: "é", count: 100_000)
        write("first line\n")
        write(long + "\n")
        write("")
        write("last line\n")
        close(descriptor)
        #expect(try String(contentsOf: file, encoding: .utf8) == "first line\n" + long + "\nlast line\n")
    }

    #if os(Linux)
        @Test("a line the descriptor refuses (a full disk) is dropped, and the writer goes on")
        func aRefusedLineIsDropped() throws {
            // `/dev/full` answers every write with ENOSPC, as a full disk does.
            let descriptor = open("/dev/full", O_WRONLY)
            try #require(descriptor >= 0)
            defer { close(descriptor) }
            let write = StandardOutput.writer(to: descriptor)
            write("GET / 200\n")
            write("POST /checkout/order 503\n")
            // A closed descriptor (EBADF) likewise.
            StandardOutput.writer(to: -1)("nowhere\n")
        }
    #endif
}
