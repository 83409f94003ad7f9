import NIOCore
import Testing

@testable import ServerMachinery

@Suite("ByteBuffer(joining:)")
struct ByteBufferJoiningTests {
    @Test("the readable bytes of every part, in order, and nothing else")
    func joinsReadableBytes() {
        var read = ByteBuffer(string: "skipped|kept")
        read.moveReaderIndex(forwardBy: 8)
        let joined = ByteBuffer(joining: [ByteBuffer(string: "one "), read, ByteBuffer(), ByteBuffer(string: " two")])
        #expect(String(buffer: joined) == "one kept two")
        #expect(ByteBuffer(joining: []).readableBytes == 0)
    }
}
