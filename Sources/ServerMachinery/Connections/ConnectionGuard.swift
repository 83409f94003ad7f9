import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Guards every connection against clients that are slow on purpose or take more than their share,
/// on the event loop's own clock (virtual in tests, through `EmbeddedEventLoop.advanceTime`).
///
/// - A request's head must arrive whole within `headerTimeout` of the connection opening or of the
///   last answer (a client sending a byte a second never gets there), and its body within
///   `bodyTimeout` of the head. An event stream, whose answer never ends, is not timed.
/// - Past `ConnectionCounter.limit` open connections, a new one gets `503` with `Retry-After` and
///   is closed; one that sends nothing is closed after `refusedHeadTimeout`.
/// - A request announcing a body larger than `maxBodyBytes` is answered `413` at once, without
///   waiting for a body it would be refused (a client that waits for `100 Continue`, as curl does
///   for large bodies, would otherwise wait until the body time-out cut it off unanswered). A body
///   sent in chunks that grows past it is passed on no further (the reader, given the part that
///   crosses it, answers `413`).
/// - A request whose `Host` HTTP/1.1 refuses (two of them, none, not a host, or another host than
///   its target names: ``HostField``) is answered `400`, and so is a head the parser cannot read
///   (its headers past the decoder's limits, a method or version HTTP does not know, both
///   `Content-Length` and chunked), with a sentence saying which.
/// - After any of these refusals the connection closes, once the answer is written and what the
///   client was still sending has been read and dropped, within the body time-out.
/// - A head that expects `100 Continue` (HTTP/1.1) is told to go on as soon as it is admitted, so
///   that a client waiting for it (curl, for a large post) does not wait out its own delay.
/// - A body that does not arrive within `bodyTimeout` is answered `408` with a sentence before
///   the connection closes: the client is told why, not left to its own time-out.
/// - A reader that takes nothing for `stalledWriteTimeout` while the server has data waiting for
///   it (the channel is not writable) is disconnected: what it is owed is conflated meanwhile, so
///   it never costs more than the fixed kernel send buffer and one pending write, and past the
///   bound it costs nothing.
///
/// It sits on NIO's own HTTP/1 parts, ahead of the conversion to HTTP types, so that it sees every
/// request, including the static files answered there (``StaticAssetChannelHandler``).
package final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    package struct Limits: Sendable {
        package var headerTimeout: TimeAmount = .seconds(10)
        package var bodyTimeout: TimeAmount = .seconds(10)
        package var stalledWriteTimeout: TimeAmount = .seconds(30)
        /// How long a connection past the cap may stay open before its request's head arrives (to be
        /// answered 503). Short, because each one holds a descriptor the admitted ones may need: a
        /// flood of idle connections must not bring the process to its open-file limit.
        package var refusedHeadTimeout: TimeAmount = .seconds(1)
        package var retryAfterSeconds = 5
        /// The kernel's send buffer for each connection (Linux doubles it for its own bookkeeping).
        /// Fixed, so that a reader that stopped reading holds this much in the kernel rather than the
        /// megabytes the kernel would otherwise grow it to; the rest is conflated in the server.
        package var sendBufferBytes: Int32 = 64 * 1024
        /// The largest request body any route takes.
        package var maxBodyBytes = Int.max

        package init(
            headerTimeout: TimeAmount = .seconds(10), bodyTimeout: TimeAmount = .seconds(10),
            stalledWriteTimeout: TimeAmount = .seconds(30), refusedHeadTimeout: TimeAmount = .seconds(1),
            retryAfterSeconds: Int = 5, sendBufferBytes: Int32 = 64 * 1024, maxBodyBytes: Int = .max
        ) {
            self.headerTimeout = headerTimeout
            self.bodyTimeout = bodyTimeout
            self.stalledWriteTimeout = stalledWriteTimeout
            self.refusedHeadTimeout = refusedHeadTimeout
            self.retryAfterSeconds = retryAfterSeconds
            self.sendBufferBytes = sendBufferBytes
            self.maxBodyBytes = maxBodyBytes
        }
    }

    private let limits: Limits
    private let counter: ConnectionCounter
    /// Each refusal and each cut-off is logged with its cause (never the client's address or headers).
    private let logger: Logger
    private var counted = false
    private var refused = false
    /// Requests whose head has arrived and whose answer has not ended.
    private var unanswered = 0
    /// When the connection is closed unless what it waits for (a head, a body) has come; nil while
    /// nothing is awaited (an answer is being made).
    private var deadline: NIODeadline?
    /// What `deadline` waits for, and how long it was given (for the log line).
    private var waitingForHead = true
    private var armedTimeout = TimeAmount.zero
    /// One timer at a time, never later than `deadline`. Moving the deadline later (every answer,
    /// every head) leaves it alone: when it fires early it sets itself again for what is left.
    /// Scheduling and cancelling a timer twice per request was 8 % of the server's time answering
    /// a stylesheet.
    private var requestTimer: Scheduled<Void>?
    private var requestTimerFiresAt = NIODeadline.distantFuture
    /// The bytes of the body being read so far.
    private var bodyBytes = 0
    /// Whether a request was refused here (the connection past the cap, its `Host`, or its body
    /// past `maxBodyBytes`): nothing
    /// more is passed on, and the connection closes once that request's answer is written and its
    /// body read to the end (or its body time-out passed). The body is read rather than left
    /// unread: closing a socket with bytes unread resets it, and the client may then lose the
    /// answer it was sent.
    private var closing = false
    /// Whether the refused request's body is still arriving.
    private var refusedBodyArriving = false
    /// Whether the refused request's answer has been written.
    private var refusalAnswered = false
    /// A refusal's answer, written once the answers before it are.
    private struct Refusal {
        let status: HTTPResponseStatus
        let text: String
        let retryAfter: Int?
        /// Whether what the refused client still sends is timed by the body time-out.
        let bodyTimed: Bool
    }

    /// The refusal due once the answers before it are written.
    private var dueAnswer: Refusal?
    /// Whether the answer to the request under way has begun (its head is written).
    private var answering = false
    /// Whether a request's head has been passed on and its end has not: a parser error now is in
    /// its body, which the application is reading.
    private var readingBody = false
    /// Whether the guard answered the request under way itself (`408`): what the application
    /// writes for it afterwards is dropped, not sent after that answer.
    private var answeredInItsPlace = false
    private var stallTimer: Scheduled<Void>?

    package init(limits: Limits, counter: ConnectionCounter, logger: Logger = Logger(label: "luthier.connections")) {
        self.limits = limits
        self.counter = counter
        self.logger = logger
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { opened(context: context) }
    }

    package func channelActive(context: ChannelHandlerContext) {
        opened(context: context)
        context.fireChannelActive()
    }

    private func opened(context: ChannelHandlerContext) {
        guard !counted else { return }
        counted = true
        refused = !counter.admit()
        if refused { counter.countRefusal() }
        // A socket that no longer takes options is closing: nothing is sent to it either way.
        try? context.channel.syncOptions?.setOption(
            ChannelOptions.socketOption(.so_sndbuf), value: SocketOptionValue(limits.sendBufferBytes))
        try? context.channel.syncOptions?.setOption(
            ChannelOptions.recvAllocator,
            value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 1024, maximum: 65_536))
        arm(refused ? limits.refusedHeadTimeout : limits.headerTimeout, context: context)
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        released()
    }

    package func channelInactive(context: ChannelHandlerContext) {
        released()
        context.fireChannelInactive()
    }

    private func released() {
        deadline = nil
        requestTimer?.cancel()
        requestTimer = nil
        stallTimer?.cancel()
        stallTimer = nil
        if counted {
            counted = false
            counter.release()
        }
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            if closing { return }
            if refused {
                logger.warning("Refused a connection with 503: the cap of \(counter.limit) connections is reached")
                // Timed by the short refusal time-out set when it opened, not the body time-out.
                refuse(
                    .serviceUnavailable, "The server is busy; please try again in a few seconds.\n",
                    retryAfter: limits.retryAfterSeconds, bodyTimed: false, context: context)
                return
            }
            if let problem = HostField.problem(of: head) {
                logger.notice("Refused a request with 400: its Host header is not one HTTP/1.1 accepts")
                refuse(.badRequest, problem, context: context)
                return
            }
            if Self.announcedLength(head) ?? 0 > limits.maxBodyBytes {
                logger.notice("Refused a request with 413: it announced a body past \(limits.maxBodyBytes) bytes")
                refuse(
                    .payloadTooLarge,
                    "The request's body is larger than \(limits.maxBodyBytes) bytes, the most this server takes.\n",
                    context: context)
                return
            }
            bodyBytes = 0
            // Told to go on only when nothing else is being answered, so that the interim answer
            // never lands in another's.
            if unanswered == 0, Self.expectsContinue(head) {
                context.writeAndFlush(
                    wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: .continue))), promise: nil)
            }
            unanswered += 1
            readingBody = true
            arm(limits.bodyTimeout, context: context)
        case .body(let part):
            if closing { return }
            bodyBytes += part.readableBytes
            // The part that crosses the cap goes on, so that the reader sees the body is too large
            // and answers so; the rest is read and dropped.
            if bodyBytes > limits.maxBodyBytes {
                logger.notice("A request's body grew past \(limits.maxBodyBytes) bytes: the rest is dropped")
                closing = true
                refusedBodyArriving = true
                refusalAnswered = unanswered == 0
            }
        case .end:
            readingBody = false
            if closing {
                refusedBodyArriving = false
                closeIfRefusalDone(context: context)
                return
            }
            // The body is in: an answer in progress is not timed. An answer that has already
            // ended (a static file answered on the head, a refusal before the body) armed the
            // wait for the next head, which stays.
            if unanswered > 0 { deadline = nil }
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if answeredInItsPlace {
            promise?.fail(ChannelError.ioOnClosedChannel)
            return
        }
        guard case .end = unwrapOutboundIn(data) else {
            if case .head(let head) = unwrapOutboundIn(data), head.status.code >= 200 { answering = true }
            context.write(data, promise: promise)
            return
        }
        answering = false
        unanswered = max(unanswered - 1, 0)
        guard unanswered == 0 else {
            context.write(data, promise: promise)
            return
        }
        if closing {
            let written = context.writeAndFlush(data)
            written.cascade(to: promise)
            if let refusal = dueAnswer {
                dueAnswer = nil
                answer(refusal, context: context)
            } else {
                whenAnswered(written, context: context)
            }
        } else {
            arm(limits.headerTimeout, context: context)
            context.write(data, promise: promise)
        }
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            stallTimer?.cancel()
            stallTimer = nil
        } else if stallTimer == nil {
            let channel = context.channel
            let (logger, timeout, counter) = (logger, limits.stalledWriteTimeout, counter)
            stallTimer = context.eventLoop.scheduleTask(in: timeout) {
                logger.warning("Cut off a reader that took nothing for \(timeout.nanoseconds / 1_000_000_000) s")
                counter.countCutOff()
                channel.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    /// Closes the connection unless what it waits for arrives within `timeout`.
    private func arm(_ timeout: TimeAmount, context: ChannelHandlerContext) {
        let due = context.eventLoop.now + timeout
        deadline = due
        waitingForHead = unanswered == 0
        armedTimeout = timeout
        if requestTimer == nil || requestTimerFiresAt > due { schedule(at: due, context: context) }
    }

    private func schedule(at due: NIODeadline, context: ChannelHandlerContext) {
        requestTimer?.cancel()
        requestTimerFiresAt = due
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopBoundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        requestTimer = context.eventLoop.scheduleTask(deadline: due) {
            handler.value.requestTimerFired(context: loopBoundContext.value)
        }
    }

    private func requestTimerFired(context: ChannelHandlerContext) {
        requestTimer = nil
        guard let deadline else { return }
        if context.eventLoop.now < deadline {
            schedule(at: deadline, context: context)
            return
        }
        // An idle keep-alive connection closed for want of a next request is routine (debug); a
        // body that does not arrive is a client that stalls on purpose or a broken one (notice).
        let seconds = armedTimeout.nanoseconds / 1_000_000_000
        // A body that did not come is answered, unless its answer has begun (or was the guard's).
        // The request log then shows the application's answer to the body cut off, not sent.
        let answers = !waitingForHead && !closing && !answering
        logger.log(
            level: waitingForHead ? .debug : .notice,
            "\(answers ? "Answered 408 and closed" : "Closed") a connection: \(waitingForHead ? "no request head" : "a request's body did not arrive") within \(seconds) s"
        )
        guard answers else {
            context.channel.close(promise: nil)
            return
        }
        answeredInItsPlace = true
        let channel = context.channel
        let sentence = "The request's body did not arrive within \(seconds) s of its head; send it whole, at once.\n"
        PlainAnswer.write(.requestTimeout, sentence, context: context).whenComplete { _ in channel.close(promise: nil) }
    }

    /// A head the parser could not read (its error comes before anything of it is passed on) is
    /// answered here, `400` with what was wrong, after the answers before it; one in a body
    /// already passed on is the application's to answer, as it reads the body. What the client
    /// sends after it, which the parser no longer reads, is dropped.
    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let error = error as? HTTPParserError, !readingBody {
            guard !closing else { return }
            logger.notice("Refused a request with 400: the parser could not read its head")
            refuse(.badRequest, Self.sentence(for: error), bodyArriving: false, context: context)
            return
        }
        if closing, error is ByteToMessageDecoderError { return }
        context.fireErrorCaught(error)
    }

    /// What the client is told of a head the parser could not read.
    private static func sentence(for error: HTTPParserError) -> String {
        switch error {
        case .headerOverflow:
            "The request's head is larger than this server reads: at most 1,000 headers and 80 KiB in all.\n"
        case .invalidMethod:
            "The request's method is not one HTTP/1.1 knows; this shop takes GET, HEAD and POST, in capitals.\n"
        case .invalidVersion:
            "The request line must end in HTTP/1.1 (or HTTP/1.0).\n"
        case .invalidContentLength, .unexpectedContentLength:
            "A request's body is framed by one Content-Length or Transfer-Encoding: chunked, not both, "
                + "and a Content-Length is a number.\n"
        default:
            // The parser names some framing errors (both Content-Length and chunked) no better.
            "The request could not be read as HTTP/1.1: a request line, then headers (a name, a colon and "
                + "a value, each line ending in CRLF; a body framed by one Content-Length or Transfer-Encoding: "
                + "chunked, not both), then a blank line.\n"
        }
    }

    /// Whether `head` asks to be told to go on before it sends its body (`Expect: 100-continue`),
    /// as only HTTP/1.1 clients may.
    private static func expectsContinue(_ head: HTTPRequestHead) -> Bool {
        head.version.major == 1 && head.version.minor >= 1
            && head.headers["expect"].contains { $0.lowercased() == "100-continue" }
    }

    /// The body length a head announces (`Content-Length`), if it announces one.
    private static func announcedLength(_ head: HTTPRequestHead) -> Int? {
        head.headers.first(name: "content-length").flatMap { Int($0) }
    }

    /// Refuses the request whose head just came, with `status` and `text`, once the answers
    /// before it are written; what else the connection sends is read and dropped, and it closes
    /// once the answer is out and the body read (within the body time-out, when `bodyTimed`).
    private func refuse(
        _ status: HTTPResponseStatus, _ text: String, retryAfter: Int? = nil, bodyTimed: Bool = true,
        bodyArriving: Bool = true, context: ChannelHandlerContext
    ) {
        closing = true
        refusedBodyArriving = bodyArriving
        let refusal = Refusal(status: status, text: text, retryAfter: retryAfter, bodyTimed: bodyTimed)
        if unanswered == 0 {
            answer(refusal, context: context)
        } else {
            // An answer in progress is not timed: the body's time starts with this one's answer.
            deadline = nil
            dueAnswer = refusal
        }
    }

    /// Writes `refusal`'s answer, timing what the client still sends if it says so.
    private func answer(_ refusal: Refusal, context: ChannelHandlerContext) {
        if refusal.bodyTimed { arm(limits.bodyTimeout, context: context) }
        whenAnswered(
            PlainAnswer.write(refusal.status, refusal.text, retryAfter: refusal.retryAfter, context: context),
            context: context)
    }

    /// Marks the refused request answered once `written` (its answer's end) is on the socket, and
    /// closes the connection if its body has arrived too.
    private func whenAnswered(_ written: EventLoopFuture<Void>, context: ChannelHandlerContext) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loopBoundContext = NIOLoopBound(context, eventLoop: context.eventLoop)
        written.whenComplete { _ in
            handler.value.refusalAnswered = true
            handler.value.closeIfRefusalDone(context: loopBoundContext.value)
        }
    }

    /// Closes the connection once the refused request is answered and its body has arrived.
    private func closeIfRefusalDone(context: ChannelHandlerContext) {
        guard closing, refusalAnswered, !refusedBodyArriving else { return }
        context.close(promise: nil)
    }
}

/// The open connections of the server, shared by every connection's ``ConnectionGuard``.
public final class ConnectionCounter: Sendable {
    /// Connections served at once at most; more are answered 503.
    public let limit: Int
    private let open = WatchedCount()
    private let refusals = Atomic<Int>(0)
    private let cutOffs = Atomic<Int>(0)

    public init(limit: Int) {
        self.limit = max(limit, 1)
    }

    /// Connections open right now (including refused ones still being answered).
    public var current: Int { open.value }

    /// Returns once the connections open meet `condition` (false if the task is cancelled first):
    /// a test knows the server has let a connection go without looking again and again.
    public func untilCurrent(_ condition: @escaping @Sendable (Int) -> Bool) async -> Bool {
        await open.waitUntil(condition)
    }

    /// Counts a new connection; false when it is one too many (it is still counted until released).
    package func admit() -> Bool {
        open.add(1) <= limit
    }

    package func release() {
        open.add(-1)
    }

    /// Connections answered `503` at the cap since the start.
    public var refused: Int { refusals.load(ordering: .relaxed) }
    /// Readers cut off for taking nothing since the start.
    public var cutOff: Int { cutOffs.load(ordering: .relaxed) }

    package func countRefusal() { refusals.wrappingAdd(1, ordering: .relaxed) }
    package func countCutOff() { cutOffs.wrappingAdd(1, ordering: .relaxed) }
}
