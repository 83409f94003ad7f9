import NIOCore
import NIOHTTPTypes

/// Notices when the client closes its side of the connection.
///
/// Hummingbird allows half-closure, so a browser that closes an event stream only sends a FIN;
/// nothing fails until the server next writes, which for an idle stream can be a whole heartbeat
/// later. This handler turns that FIN (or the channel going inactive) into a future the stream
/// awaits, so a closed tab frees its stream at once.
final class PeerCloseHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart

    private var promise: EventLoopPromise<Void>?

    /// Completes when the peer has closed its side or the channel is gone.
    private(set) var peerClosed: EventLoopFuture<Void>?

    func handlerAdded(context: ChannelHandlerContext) {
        let promise = context.eventLoop.makePromise(of: Void.self)
        self.promise = promise
        peerClosed = promise.futureResult
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        promise?.succeed()
        promise = nil
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            promise?.succeed()
            promise = nil
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise?.succeed()
        promise = nil
        context.fireChannelInactive()
    }

    /// The future for a channel whose pipeline has this handler, or nil if it has none.
    static func peerClosed(on channel: any Channel) async -> EventLoopFuture<Void>? {
        try? await channel.eventLoop.submit { () -> EventLoopFuture<Void>? in
            try channel.pipeline.syncOperations.handler(type: PeerCloseHandler.self).peerClosed
        }.get()
    }
}
