import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1

/// Hummingbird's HTTP/1 child channel (`HTTP1Channel`), with room for handlers *ahead of* the
/// conversion from NIO's HTTP/1 parts to HTTP types.
///
/// Hummingbird's own channel adds its extra handlers after that conversion, so every request, even
/// one for a stylesheet that is answered from memory, paid for it: a `URLComponents` parse of the
/// target, the cookie split into fields, and the answer's head converted back (17 % of the
/// server's time answering `/styles.css`). The connection's guard and the static files sit before
/// it; the event streams' handler, which takes a connection over from the router, after it.
/// Everything else is as `HTTP1Channel` sets it up, with its decoder limits.
package struct LayeredHTTP1Channel: ServerChildChannel, HTTPChannelHandler {
    package typealias Value = NIOAsyncChannel<HTTPRequestPart, HTTPResponsePart>

    package let responder: HTTPChannelHandler.Responder
    /// Handlers on NIO's HTTP/1 parts (`HTTPServerRequestPart`, `HTTPServerResponsePart`).
    package let beforeConversion: @Sendable () -> [any RemovableChannelHandler]
    /// Handlers on HTTP types (`HTTPRequestPart`, `HTTPResponsePart`), next to the router.
    package let afterConversion: @Sendable () -> [any RemovableChannelHandler]

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            let operations = channel.pipeline.syncOperations
            var limits = NIOHTTPDecoderLimitConfiguration()
            let defaults = HTTP1Channel.Configuration.DecoderConfiguration()
            limits.maxHeaderFieldSize = defaults.maxHeaderFieldSize
            limits.maxHeaderListSize = defaults.maxHeaderListSize
            limits.maxHeaderFieldCount = defaults.maxHeaderFieldCount
            try operations.configureHTTPServerPipeline(
                withPipeliningAssistance: false,  // as Hummingbird's: the async channel takes requests in turn
                withErrorHandling: false,  // the application answers errors
                withOutboundHeaderValidation: false,  // HTTP types validate the router's fields
                withEncoderConfiguration: .init(),
                withDecoderLimitConfiguration: limits
            )
            try operations.addHandlers(beforeConversion())
            try operations.addHandler(HTTP1ToHTTPServerCodec(secure: false))
            try operations.addHandlers(afterConversion())
            try operations.addHandler(HTTPConnectionStateHandler(idleTimeout: nil, logger: logger))
            return try NIOAsyncChannel(
                wrappingChannelSynchronously: channel, configuration: .init(isOutboundHalfClosureEnabled: true))
        }
    }

    package func handle(value asyncChannel: Value, logger: Logger) async {
        await handleHTTP(asyncChannel: asyncChannel, logger: logger)
    }
}

extension HTTPServerBuilder {
    /// An HTTP/1 server on ``LayeredHTTP1Channel``.
    package static func layeredHTTP1(
        beforeConversion: @escaping @Sendable () -> [any RemovableChannelHandler],
        afterConversion: @escaping @Sendable () -> [any RemovableChannelHandler]
    ) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            LayeredHTTP1Channel(
                responder: responder, beforeConversion: beforeConversion, afterConversion: afterConversion)
        }
    }
}
