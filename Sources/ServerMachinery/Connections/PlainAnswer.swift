import NIOCore
import NIOHTTP1

/// The plain answer a channel handler writes itself, without the application (a `503` at a cap, a
/// `413` for a body too large): a sentence, when to come back if it says, the security headers
/// every answer carries, and `Connection: close`.
enum PlainAnswer {
    /// Writes the answer; with `closing`, closes the connection once it is written (otherwise the
    /// caller closes it, once it has read what the client was still sending). The future
    /// completes once the answer is written.
    @discardableResult
    static func write(
        _ status: HTTPResponseStatus, _ text: String, retryAfter seconds: Int? = nil, closing: Bool = true,
        context: ChannelHandlerContext
    ) -> EventLoopFuture<Void> {
        let body = ByteBuffer(string: text)
        var headers: HTTPHeaders = [
            "Content-Type": "text/plain; charset=utf-8", "Content-Length": String(body.readableBytes),
            "Connection": "close", "Cache-Control": "no-store",
        ]
        if let seconds { headers.add(name: "Retry-After", value: String(seconds)) }
        SecurityHeaders.apply(to: &headers)
        let head = HTTPResponseHead(version: .http1_1, status: status, headers: headers)
        context.write(NIOAny(HTTPServerResponsePart.head(head)), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        let written = context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
        if closing {
            let channel = context.channel
            written.whenComplete { _ in channel.close(promise: nil) }
        }
        return written
    }
}
