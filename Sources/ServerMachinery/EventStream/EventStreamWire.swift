import NIOCore

/// The socket's end of a connection whose stream ``EventStreamChannelHandler`` has taken over,
/// once the HTTP/1 handlers are gone: what the client sends is dropped (nothing answers a request
/// sent after a stream), and everything else (its half-close, writability, the server's quiesce)
/// goes on to the stream's handler.
///
/// Why the HTTP/1 handlers go: they are a connection's largest part, about 2 KiB of the decoder,
/// its parser, the encoder, the pipelining handler, the conversion to HTTP types and their
/// places in the pipeline, and a stream that only writes needs none of them. The stream's events
/// are written from this handler's place, as the encoder would have framed them.
package final class EventStreamWire: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {}
}
