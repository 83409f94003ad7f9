import Logging
import NIOCore
import NIOEmbedded
import TestSupport
import Testing

@testable import ServerMachinery

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The backoff on an embedded channel standing for the listening socket, on the embedded event
/// loop's virtual clock; `autoRead` is what the real listening channel polls by.
@Suite("AcceptBackoff")
struct AcceptBackoffTests {
    static func listener(log: LogCapture) throws -> EmbeddedChannel {
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(
            AcceptBackoff(pause: .milliseconds(200), logger: log.logger()))
        return channel
    }

    static func autoRead(_ channel: EmbeddedChannel) -> Bool? {
        channel.options.first { $0.option is ChannelOptions.Types.AutoReadOption }?.value as? Bool
    }

    static let outOfDescriptors = IOError(errnoCode: EMFILE, reason: "accept")

    @Test("out of descriptors, the listener stops polling for the pause and then tries again; no spin")
    func pausesAtTheDescriptorLimit() throws {
        let log = LogCapture()
        let listener = try Self.listener(log: log)
        listener.pipeline.fireErrorCaught(Self.outOfDescriptors)
        #expect(Self.autoRead(listener) == false)
        // More failures while paused (the same backlog) neither stack timers nor log again.
        listener.pipeline.fireErrorCaught(Self.outOfDescriptors)
        listener.embeddedEventLoop.advanceTime(by: .milliseconds(199))
        #expect(Self.autoRead(listener) == false)
        listener.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(Self.autoRead(listener) == true)
        // Still out of descriptors: another pause, still one warning for the episode.
        listener.pipeline.fireErrorCaught(Self.outOfDescriptors)
        #expect(Self.autoRead(listener) == false)
        listener.embeddedEventLoop.advanceTime(by: .milliseconds(200))
        #expect(Self.autoRead(listener) == true)
        #expect(log.all.filter { $0.contains("Stopped accepting connections") }.count == 1)
        #expect(log.all.allSatisfy { !$0.contains("Accepting connections again") })
        // The handler swallowed what it handled: nothing reached the end of the pipeline.
        try listener.throwIfErrorCaught()

        // A connection accepted again ends the episode, logged with its number of pauses.
        try listener.writeInbound(EmbeddedChannel() as any Channel)
        #expect(log.all.contains { $0.contains("Accepting connections again after 2 pause(s)") })
    }

    @Test("other errors pass through untouched and do not pause the listener")
    func otherErrorsPassThrough() throws {
        let log = LogCapture()
        let listener = try Self.listener(log: log)
        listener.pipeline.fireErrorCaught(IOError(errnoCode: ECONNABORTED, reason: "accept"))
        #expect(Self.autoRead(listener) == nil)
        #expect(throws: IOError.self) { try listener.throwIfErrorCaught() }
        #expect(log.all.isEmpty)
    }

    @Test("the errors that free themselves as connections close are the exhaustion ones")
    func exhaustion() {
        for code in [EMFILE, ENFILE, ENOBUFS, ENOMEM] {
            #expect(AcceptBackoff.isExhaustion(IOError(errnoCode: code, reason: "accept")))
        }
        #expect(!AcceptBackoff.isExhaustion(IOError(errnoCode: ECONNRESET, reason: "accept")))
        #expect(!AcceptBackoff.isExhaustion(ChannelError.ioOnClosedChannel))
    }
}
