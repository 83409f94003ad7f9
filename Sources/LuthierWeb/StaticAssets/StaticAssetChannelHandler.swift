import HTTPTypes
import NIOCore
import NIOHTTPTypes

/// Answers requests for files of the ``StaticAssetCatalog`` on the event loop, before a request
/// reaches Hummingbird's router.
///
/// A static file is a lookup in memory, yet through the router it costs a task, the middleware
/// chain and a hop between threads. Answering here makes the stylesheet nearly as cheap as from
/// nginx. The answer is exactly the one ``StaticAssetMiddleware`` gives (the same function builds
/// it), with the security headers every response carries.
///
/// Ordering: HTTP/1.1 lets a client send the next request before the last answer. A request is
/// answered here only when no earlier request of the connection is still being answered by the
/// router (counted by the response ends passing back out); otherwise it goes on to the router,
/// whose middleware answers it in turn.
final class StaticAssetChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let answers: StaticAssetAnswers
    /// Requests passed to the router whose response has not ended yet.
    private var inRouter = 0
    /// Whether the request being read was answered here (its body and end are dropped).
    private var answeredHere = false

    init(answers: StaticAssetAnswers) {
        self.answers = answers
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            if inRouter == 0, let (head, body) = answers.response(for: request) {
                answeredHere = true
                send(head, body, for: request, context: context)
                return
            }
            answeredHere = false
            inRouter += 1
        case .body, .end:
            if answeredHere { return }
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { inRouter = max(inRouter - 1, 0) }
        context.write(data, promise: promise)
    }

    private func send(
        _ head: HTTPResponse, _ body: ByteBuffer?, for request: HTTPRequest, context: ChannelHandlerContext
    ) {
        var head = head
        let closing = request.headerFields[.connection]?.lowercased() == "close"
        if closing { head.headerFields[.connection] = "close" }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        if let body { context.write(wrapOutboundOut(.body(body)), promise: nil) }
        if closing {
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        } else {
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
    }
}
