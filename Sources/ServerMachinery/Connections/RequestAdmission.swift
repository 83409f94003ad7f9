import NIOCore
import NIOHTTP1

/// Admits each request that reaches the application while fewer than `RequestsInProgress.limit`
/// are in progress, and answers the rest `503` with `Retry-After` at once, from the event loop.
///
/// It sits after the static files' handler (``StaticAssetChannelHandler``): a stylesheet answered
/// from memory costs a busy server nothing, and a page served before the rush keeps its styles.
/// The liveness probe, `/livez`, is always let through, so that a busy instance is not taken for
/// a dead one; readiness (`/readyz`, `/healthz`) may say busy like the rest, and send customers
/// to another instance meanwhile.
package final class RequestAdmission: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let requests: RequestsInProgress
    private let retryAfterSeconds: Int
    /// This connection's requests counted in `requests` whose answer has not begun.
    private var inProgress = 0
    /// A request taken in whose last byte has not come yet (not counted until it does).
    private var awaitingEnd = false
    /// That request was answered before its last byte came (a refusal of its head or of its size):
    /// it is not counted when the byte comes.
    private var answeredBeforeEnd = false
    /// A request was refused: what else the connection sends is dropped, and it closes once the
    /// refused request's last byte has come and the refusal is written.
    private var refused = false
    /// The refusal's writing, until the refused request's end comes: closing with its body unread
    /// would reset the socket, and the client, still writing, could lose the answer. (Should the
    /// end never come, the connection guard's time-out closes the connection.)
    private var refusalWritten: EventLoopFuture<Void>?

    /// - Parameter retryAfterSeconds: soon, since the load that refused it passes (the page
    ///   script adds up to as much again at random).
    package init(requests: RequestsInProgress, retryAfterSeconds: Int = 1) {
        self.requests = requests
        self.retryAfterSeconds = retryAfterSeconds
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if refused {
            if case .end = unwrapInboundIn(data), let written = refusalWritten {
                refusalWritten = nil
                let channel = context.channel
                written.whenComplete { _ in channel.close(promise: nil) }
            }
            return
        }
        switch unwrapInboundIn(data) {
        case .head(let head):
            guard !Self.isAlwaysServed(head) else { break }
            guard requests.admits() else {
                refused = true
                refusalWritten = PlainAnswer.write(
                    .serviceUnavailable, "The shop is busy right now; please try again in a moment.\n",
                    retryAfter: retryAfterSeconds, context: context)
                return
            }
            awaitingEnd = true
        case .body:
            break
        case .end:
            guard awaitingEnd else { break }
            awaitingEnd = false
            if answeredBeforeEnd {
                answeredBeforeEnd = false
            } else {
                requests.countWhole()
                inProgress += 1
            }
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // An answer's head ends its request's time in progress (an interim `100 Continue` does not).
        if case .head(let head) = unwrapOutboundIn(data), head.status.code >= 200 {
            if inProgress > 0 {
                inProgress -= 1
                requests.release()
            } else if awaitingEnd {
                answeredBeforeEnd = true
            }
        }
        context.write(data, promise: promise)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        released()
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        released()
    }

    private func released() {
        guard inProgress > 0 else { return }
        requests.release(inProgress)
        inProgress = 0
    }

    static func isAlwaysServed(_ head: HTTPRequestHead) -> Bool {
        head.uri == "/livez"
    }
}
