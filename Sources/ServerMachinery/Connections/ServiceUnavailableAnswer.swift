import NIOCore
import NIOHTTP1

/// The plain `503` a channel handler answers itself, without the application: a sentence, when to
/// come back, and the connection closed once it is written.
enum ServiceUnavailableAnswer {
    static func write(_ text: String, retryAfter seconds: Int, context: ChannelHandlerContext) {
        let body = ByteBuffer(string: text)
        let head = HTTPResponseHead(
            version: .http1_1, status: .serviceUnavailable,
            headers: [
                "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.readableBytes),
                "Retry-After": String(seconds), "Connection": "close", "Cache-Control": "no-store",
            ])
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in
            channel.close(promise: nil)
        }
    }
}
