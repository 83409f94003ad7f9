import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Stops accepting connections for a while when the process is out of descriptors, instead of
/// spinning.
///
/// At the open-file limit `accept` fails with `EMFILE` and leaves the connection in the listen
/// queue, so the listening socket stays readable and the event loop wakes at once to fail again:
/// one core at 100 % refusing nobody politely. NIO's own `AcceptBackoffHandler` cannot act here,
/// because after a failed accept the channel still counts its read as pending and never asks for
/// the next one, the only moment that handler delays. This handler, first in the listening
/// channel's pipeline, turns `autoRead` off on such an error (the socket leaves the poll set and
/// waiting visitors wait in the kernel's queue) and on again after `pause`, on the event loop's
/// clock (virtual in tests). Each episode is logged twice: when it starts and when it ends.
package final class AcceptBackoff: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = Channel

    private let pause: TimeAmount
    private let logger: Logger
    private var resume: Scheduled<Void>?
    /// Pauses since the last accepted connection; 0 when accepting normally.
    private var pauses = 0

    package init(pause: TimeAmount = .milliseconds(200), logger: Logger) {
        self.pause = pause
        self.logger = logger
    }

    /// Whether `error` means the process or the system is out of a resource that frees itself as
    /// connections close, so that trying again later makes sense.
    package static func isExhaustion(_ error: any Error) -> Bool {
        guard let error = error as? IOError else { return false }
        return [EMFILE, ENFILE, ENOBUFS, ENOMEM].contains(error.errnoCode)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard Self.isExhaustion(error) else {
            context.fireErrorCaught(error)
            return
        }
        guard resume == nil else { return }
        if pauses == 0 {
            logger.warning(
                "Stopped accepting connections: out of descriptors (\(error)); trying again every \(pause.nanoseconds / 1_000_000) ms"
            )
        }
        pauses += 1
        let channel = context.channel
        // A listening socket that no longer takes options is closing: there is nothing to resume.
        try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: false)
        resume = context.eventLoop.assumeIsolated().scheduleTask(in: pause) { [self] in
            self.resume = nil
            try? channel.syncOptions?.setOption(ChannelOptions.autoRead, value: true)
        }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if pauses > 0 {
            logger.notice("Accepting connections again after \(pauses) pause(s) at the descriptor limit")
            pauses = 0
        }
        context.fireChannelRead(data)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        resume?.cancel()
        resume = nil
    }
}
