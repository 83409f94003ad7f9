import NIOCore
import NIOHTTP1

/// The plain answer a channel handler writes itself, without the application (a `503` at a cap, a
/// `413` for a body too large): a sentence, when to come back if it says, the security headers
/// every answer carries, and `Connection: close`.
enum PlainAnswer {
    /// Writes the answer; the future completes once it is written. The caller closes the
    /// connection, once it has also read what the client was still sending: closed with bytes
    /// unread, the socket is reset, and the client may lose the answer.
    static func write(
        _ status: HTTPResponseStatus, _ text: String, retryAfter seconds: Int? = nil, context: ChannelHandlerContext
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
        return context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil)))
    }
}
