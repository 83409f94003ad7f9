import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// Sends an event stream's body from the connection's event loop once the router has answered its
/// head, so that an open stream holds no task.
///
/// Answered by Hummingbird's responder, a stream kept its connection's task suspended for the
/// stream's whole life, and with it the async frames of the router and every middleware: in a heap
/// profile of a thousand kiosk streams, 26 KiB per stream out of 37. Here the route hands its
/// ``EventStreamBundle`` (one stream, or a browser's several) to this handler (``handOver(_:on:)``) and answers with the head
/// alone. When that answer's end passes by on its way out, the handler holds the end back and
/// takes the connection over:
///
/// - it registers a ``StreamWaker`` with each followed store and the hub: a wake raises a flag
///   and, if the flag was down, schedules one catch-up on the event loop, which sends whatever the
///   page does not have yet (conflated: however many changes came, at most one patch);
/// - it tells Hummingbird's side of the connection that the requests have ended, with an error
///   (``HandedOver``): the one ending after which Hummingbird's connection task returns instead of
///   waiting for the channel to close. That side then half-closes the output and closes the
///   channel, and the handler answers both as done without passing them on: the connection is the
///   stream's now;
/// - it takes NIO's HTTP/1 handlers out of the connection, which only writes from then on, and
///   writes each event as a chunk from an ``EventStreamWire`` at the socket's end (2 KiB of a
///   connection's memory were those handlers);
/// - a reader that is not taking its bytes (the channel is not writable) is caught up when it is
///   writable again, so what it is owed is conflated meanwhile (``ConnectionGuard`` cuts it off
///   if it never is);
/// - it ends the stream when the store finishes, when the client closes its side or goes away, and
///   on the server's graceful shutdown (the quiesce event, answered with a reconnect hint), then
///   writes the answer's end and closes the connection.
///
/// Requests that are not event streams pass through untouched.
package final class EventStreamChannelHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    /// What ends Hummingbird's side of a connection whose stream this handler has taken over.
    package struct HandedOver: Error {}

    /// A route answered with an event stream on a connection that has no handler to send it.
    package struct Missing: Error, CustomStringConvertible {
        package var description: String { "the connection has no EventStreamChannelHandler to send an event stream" }
    }

    /// One followed stream of the connection (one, or a bundle's several).
    private struct Part {
        package let connection: EventStreamConnection
        /// The number its events are tagged with in a bundle.
        package let tag: Int?
        /// The version the page has.
        package var sent: Int
        package let storeWaker: Int
        /// Its number in the hub (and in the log).
        package let hubID: Int
        /// The tap's lane of this stream (`<n>.patch`).
        package let lane: String
    }

    private struct Stream {
        package let bundle: EventStreamBundle
        package var parts: [Part]
        /// Raised by any part's store, and by the hub's heartbeat: one catch-up looks at them all.
        package let signal: WakeSignal
        /// One encoder for the connection: a bundle's parts share its gzip stream.
        package var encoder: EventStreamEncoder
        /// The hub's heartbeat when this connection last looked.
        package var heartbeat: Int
    }

    private enum State {
        /// Ordinary requests pass both ways.
        case idle
        /// A route has handed over a stream; its answer's head and end are on their way out.
        case prepared(EventStreamBundle)
        /// The stream is this handler's; Hummingbird's side is ending or gone.
        case streaming(Stream)
        /// The stream has ended; the connection is closing.
        case ended
    }

    private var state = State.idle
    private var context: ChannelHandlerContext?
    /// Once the stream is this handler's and the HTTP/1 handlers are gone, the place the events
    /// are written from (``EventStreamWire``), framed here as chunks. Nil in a pipeline without
    /// NIO's HTTP/1 handlers (a test's): the events then go out as body parts.
    private var wire: ChannelHandlerContext?
    /// Whether a request on this connection asked to close it after its answer: Hummingbird's side
    /// then leaves without reading on, so it never sees ``HandedOver`` and closes nothing more.
    private var requestAskedToClose = false
    /// Whether Hummingbird's side has still to close the channel after the handover: that close
    /// (its only one) is answered as done and not passed on.
    private var routerCloseToCome = false

    package init() {}

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        release(.connectionClosed)
        self.context = nil
        wire = nil
    }

    /// Gives `bundle` to the handler of `channel`, to be sent once the route's answer (a `200`
    /// with the stream's headers and no body) has gone out.
    package static func handOver(_ bundle: EventStreamBundle, on channel: any Channel) async throws {
        try await channel.eventLoop.submit {
            let handler = try? channel.pipeline.syncOperations.handler(type: EventStreamChannelHandler.self)
            guard let handler else { throw Missing() }
            handler.prepare(bundle)
        }.get()
    }

    package func prepare(_ bundle: EventStreamBundle) {
        guard case .idle = state else { return }
        state = .prepared(bundle)
    }

    // MARK: Inbound

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch state {
        case .idle, .prepared:
            if case .head(let head) = unwrapInboundIn(data), head.headerFields[.connection]?.lowercased() == "close" {
                requestAskedToClose = true
            }
            context.fireChannelRead(data)
        case .streaming, .ended:
            // Nothing answers a request sent after a stream: its answer would come after the
            // stream's end, and the connection closes then.
            break
        }
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .streaming = state {
            if event is ChannelShouldQuiesceEvent {
                end(.serverStopping)
                return
            }
            if case ChannelEvent.inputClosed = event {
                // The client closed its side: a closed tab frees its stream at once, not a
                // heartbeat later when a write would fail.
                end(.clientLeft)
                return
            }
        }
        context.fireUserInboundEventTriggered(event)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        release(.connectionClosed)
        context.fireChannelInactive()
    }

    package func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { catchUp() }
        context.fireChannelWritabilityChanged()
    }

    // MARK: Outbound

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch state {
        case .idle:
            context.write(data, promise: promise)
        case .prepared(let bundle):
            switch unwrapOutboundIn(data) {
            case .head(var head):
                guard head.status == .ok, head.headerFields[.contentType]?.hasPrefix("text/event-stream") == true,
                    !bundle.isOver
                else {
                    // Not the stream's answer after all (an error replaced it), or a stream of a
                    // store that has ended (its session is gone): an empty answer, as it is.
                    state = .idle
                    bundle.unused()
                    context.write(data, promise: promise)
                    return
                }
                // The body is written here, chunked, and the connection closes after it.
                head.headerFields[.contentLength] = nil
                head.headerFields[.connection] = "close"
                context.write(wrapOutboundOut(.head(head)), promise: promise)
            case .body:
                context.write(data, promise: promise)
            case .end:
                if begin(bundle, context: context) {
                    promise?.succeed(())
                } else {
                    state = .idle
                    bundle.unused()
                    context.write(data, promise: promise)
                }
            }
        case .streaming, .ended:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    package func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if case .streaming = state {
            switch mode {
            case .output:
                // Hummingbird's side finishing its writer; the stream still writes.
                promise?.succeed(())
                return
            case .all where routerCloseToCome:
                routerCloseToCome = false
                promise?.succeed(())
                return
            default:
                // Closed by the server: a stalled reader cut off, or the process going down.
                release(.closedByServer)
            }
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: The stream

    /// Takes the connection over for `bundle`: false (and nothing taken) when its single stream's
    /// store has already finished, so the empty answer goes out as it is. A bundle's part whose
    /// store has finished is said to be gone (`410`), and the others are sent.
    private func begin(_ bundle: EventStreamBundle, context: ChannelHandlerContext) -> Bool {
        let signal = WakeSignal()
        let loop = context.eventLoop
        let handler = NIOLoopBound(self, eventLoop: loop)
        let waker = StreamWaker(
            wake: { if signal.raise() { loop.execute { handler.value.catchUp() } } },
            finish: { loop.execute { handler.value.end(.storeFinished) } })
        let hub = bundle.hub
        var encoder = EventStreamEncoder(compressed: bundle.compressed)
        var events: [ByteBuffer] = []
        var gone: [EventStreamBundle.Refusal] = []
        var parts: [Part] = []
        for part in bundle.parts {
            let connection = part.connection
            guard let storeWaker = connection.fragments.addWaker(waker) else {
                guard let tag = part.tag else { return false }
                connection.unused()
                gone.append(
                    .init(tag: tag, error: UserFacingError(.gone, "This stream has ended; load its page again.")))
                continue
            }
            // The owner counts it first (a session's streams), then the hub, whose counts a caller
            // may await: once they show the stream, so does its owner.
            connection.opened()
            let hubID = hub.register(
                waker, kind: connection.kind, client: connection.client, reservation: connection.reservation)
            // Counted until its connection has closed, not only until its last event: the hub's
            // counts (its caps, and the drain a graceful shutdown waits for) hold every connection
            // in use.
            context.channel.closeFuture.whenComplete { _ in hub.unregister(hubID) }
            let lane = "\(hubID).patch"
            connection.tap?.record(lane, .subscribed)
            parts.append(
                Part(connection: connection, tag: part.tag, sent: 0, storeWaker: storeWaker, hubID: hubID, lane: lane))
        }
        if let id = bundle.id {
            let channel = context.channel
            hub.registerBundle(id) {
                loop.execute { handler.value.end(.replaced) }
                return channel.closeFuture
            }
            channel.closeFuture.whenComplete { _ in hub.unregisterBundle(id) }
        }
        bundle.opening(encoder: &encoder, into: &events)
        for refusal in gone { events.append(encoder.encode(bundle.refused(refusal.tag, refusal.error))) }
        for index in parts.indices {
            parts[index].sent = parts[index].connection.opening(tag: parts[index].tag, encoder: &encoder, into: &events)
        }
        state = .streaming(
            Stream(bundle: bundle, parts: parts, signal: signal, encoder: encoder, heartbeat: hub.heartbeat))
        routerCloseToCome = !requestAskedToClose
        wire = Self.trimmingHTTP(from: context.pipeline)
        write(events, context: context)
        // After the answer's end, Hummingbird's side reads on for the next request: this ends
        // its reading (and its task) instead.
        context.fireErrorCaught(HandedOver())
        // A bundle none of whose streams could be opened has said why; it ends there.
        if parts.isEmpty { end(.storeFinished) }
        return true
    }

    /// Sends what the page does not have yet, if the reader is taking its bytes, and a heartbeat
    /// when one is due and there was nothing else to send.
    private func catchUp() {
        guard case .streaming(var stream) = state, let context else { return }
        stream.signal.lower()
        guard context.channel.isWritable else { return }
        // Taken out of `state` while it changes (and put back below), so that its parts and its
        // encoder are changed in place rather than copied at every catch-up.
        state = .idle
        var events: [ByteBuffer] = []
        for index in stream.parts.indices {
            let part = stream.parts[index]
            stream.parts[index].sent = part.connection.catchingUp(
                from: part.sent, tag: part.tag, encoder: &stream.encoder, lane: part.lane, into: &events)
        }
        let beat = stream.bundle.hub.heartbeat
        if beat != stream.heartbeat {
            stream.heartbeat = beat
            if events.isEmpty { events.append(stream.encoder.encode(ServerSentEvent.heartbeat)) }
        }
        state = .streaming(stream)
        write(events, context: context)
    }

    /// Ends the stream: its last events, the answer's end, and the connection closed after them.
    private func end(_ reason: EventStreamHub.EndReason) {
        guard case .streaming(var stream) = state, let context else { return }
        var events: [ByteBuffer] = []
        stream.bundle.ending(stopping: reason == .serverStopping, encoder: &stream.encoder, into: &events)
        release(reason)
        write(events, context: context, flushing: false)
        let channel = context.channel
        let written: EventLoopFuture<Void>
        if let wire {
            written = wire.writeAndFlush(NIOAny(IOData.byteBuffer(Self.lastChunk)))
        } else {
            written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        }
        if channel.isWritable {
            written.whenComplete { _ in channel.close(promise: nil) }
        } else {
            // A reader that takes nothing would hold the close (and a graceful shutdown) until
            // it is cut off: it loses the last events instead.
            channel.close(promise: nil)
        }
    }

    /// Lets go of the streams' stores and sessions, once, whatever ended it (their places in the
    /// hub go when the connection has closed).
    private func release(_ reason: EventStreamHub.EndReason) {
        guard case .streaming(let stream) = state else {
            if case .prepared(let bundle) = state {
                state = .ended
                bundle.unused()
            }
            return
        }
        state = .ended
        for part in stream.parts {
            let connection = part.connection
            connection.fragments.removeWaker(part.storeWaker)
            connection.tap?.record(part.lane, reason.isCompletion ? .completed : .cancelled)
            connection.hub.ended(part.hubID, reason: reason)
            connection.closed()
        }
    }

    private func write(_ events: [ByteBuffer], context: ChannelHandlerContext, flushing: Bool = true) {
        guard !events.isEmpty else { return }
        guard let wire else {
            for event in events { context.write(wrapOutboundOut(.body(event)), promise: nil) }
            if flushing { context.flush() }
            return
        }
        // As NIO's encoder frames a body part (RFC 9112 §7.1): its size in hex, the bytes (shared
        // with every other stream that sends them), a line end. An empty chunk would end the body.
        for event in events where event.readableBytes > 0 {
            var size = context.channel.allocator.buffer(capacity: 18)
            size.writeString(String(event.readableBytes, radix: 16))
            size.writeStaticString("\r\n")
            wire.write(NIOAny(IOData.byteBuffer(size)), promise: nil)
            wire.write(NIOAny(IOData.byteBuffer(event)), promise: nil)
            wire.write(NIOAny(IOData.byteBuffer(Self.lineEnd)), promise: nil)
        }
        if flushing { wire.flush() }
    }

    private static let lineEnd = ByteBuffer(string: "\r\n")
    /// The chunked body's end, with no trailers.
    private static let lastChunk = ByteBuffer(string: "0\r\n\r\n")

    /// Takes NIO's HTTP/1 handlers out of a connection whose stream has been taken over (the
    /// answer's head has passed them) and puts an ``EventStreamWire`` at the socket's end; returns
    /// its place, or nil (and changes nothing) when the pipeline has no HTTP/1 encoder.
    ///
    /// From then on the client's bytes stop at the wire. The static files' handler goes first (it
    /// must answer nothing now). The decoder leaves on the loop's next turn, after passing on any
    /// request it still held; only then do the pipelining handler (which passes on what it held
    /// back), the conversion to HTTP types and the encoder go, so that whatever is passed on is
    /// still converted on its way to this handler, which drops it.
    private static func trimmingHTTP(from pipeline: ChannelPipeline) -> ChannelHandlerContext? {
        let operations = pipeline.syncOperations
        guard (try? operations.context(handlerType: HTTPResponseEncoder.self)) != nil else { return nil }
        let sink = EventStreamWire()
        guard (try? operations.addHandler(sink, position: .first)) != nil,
            let wire = try? operations.context(handler: sink)
        else { return nil }
        func removing<Handler: ChannelHandler>(_ type: Handler.Type) -> EventLoopFuture<Void>? {
            guard let context = try? operations.context(handlerType: type) else { return nil }
            return operations.removeHandler(context: context)
        }
        _ = removing(StaticAssetChannelHandler.self)
        let decoderGone = removing(ByteToMessageHandler<HTTPRequestDecoder>.self)
        let loop = NIOLoopBound(operations, eventLoop: pipeline.eventLoop)
        (decoderGone ?? pipeline.eventLoop.makeSucceededVoidFuture()).whenComplete { _ in
            let operations = loop.value
            for context in [
                try? operations.context(handlerType: HTTPServerPipelineHandler.self),
                try? operations.context(handlerType: HTTP1ToHTTPServerCodec.self),
                try? operations.context(handlerType: HTTPResponseEncoder.self),
            ] {
                if let context { operations.removeHandler(context: context, promise: nil) }
            }
        }
        return wire
    }
}

/// A stream's "something may be new" flag, raised from any thread and lowered on its event loop:
/// however many wakes come before the stream catches up, one catch-up is scheduled.
package final class WakeSignal: Sendable {
    private let raised = Atomic<Bool>(false)

    /// Raises the flag; true if it was down (the caller schedules the catch-up).
    package func raise() -> Bool {
        !raised.exchange(true, ordering: .acquiringAndReleasing)
    }

    package func lower() {
        raised.store(false, ordering: .releasing)
    }
}
