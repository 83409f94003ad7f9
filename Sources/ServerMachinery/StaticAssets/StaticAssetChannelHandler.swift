import NIOCore
import NIOHTTP1

/// Answers requests for files of the ``StaticAssetCatalog`` on the event loop, before a request
/// reaches Hummingbird's router, and before NIO's HTTP/1 head is converted to HTTP types.
///
/// A static file is a lookup in memory, yet through the router it costs a task, the middleware
/// chain and a hop between threads, and the conversion to HTTP types costs a `URLComponents` parse
/// of the target and a split of the cookie. Answering here makes the stylesheet nearly as cheap as
/// from nginx. The answer is exactly the one ``StaticAssetMiddleware`` gives (the same function
/// builds it), with the security headers every response carries. ``ConnectionGuard`` sits in front
/// of this handler, so a connection that fetches only files is timed and counted like any other.
///
/// Ordering: HTTP/1.1 lets a client send the next request before the last answer. A request is
/// answered here only when no earlier request of the connection is still being answered by the
/// router (counted by the response ends passing back out); otherwise it goes on to the router,
/// whose middleware answers it in turn.
package final class StaticAssetChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let answers: StaticAssetAnswers
    /// Requests passed to the router whose response has not ended yet.
    private var inRouter = 0
    /// Whether the request being read was answered here (its body and end are dropped).
    private var answeredHere = false

    package init(answers: StaticAssetAnswers) {
        self.answers = answers
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if inRouter == 0, let (head, body) = answers.response(for: request) {
                answeredHere = true
                send(head, body, closing: !request.isKeepAlive, context: context)
                return
            }
            answeredHere = false
            inRouter += 1
        case .body, .end:
            if answeredHere { return }
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { inRouter = max(inRouter - 1, 0) }
        context.write(data, promise: promise)
    }

    /// Writes the answer; a client that asked to close (or an HTTP/1.0 one that did not ask to
    /// keep the connection) is told so and the connection closes after the answer.
    private func send(_ head: HTTPResponseHead, _ body: ByteBuffer?, closing: Bool, context: ChannelHandlerContext) {
        var head = head
        if closing { head.headers.replaceOrAdd(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil) }
        if closing {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
