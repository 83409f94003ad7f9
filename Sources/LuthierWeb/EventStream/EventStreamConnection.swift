import Hummingbird
import NIOCore
import ServiceLifecycle

/// One open `GET /events`: sends the session's current fragments, then every change, until the
/// client goes away, the session ends or the server shuts down — and then releases all it held.
struct EventStreamConnection: Sendable {
    let session: Session
    let hub: EventStreamHub
    let reconnectDelayMilliseconds: Int
    let peerClosed: EventLoopFuture<Void>?

    func run(writer: inout any ResponseBodyWriter) async throws {
        let (wakes, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard let storeID = session.fragments.addWaker(waker) else {
            try await writer.finish(nil)
            return
        }
        let hubID = hub.register(waker)
        session.streamOpened()
        defer {
            waker.finish()
            session.fragments.removeWaker(storeID)
            hub.unregister(hubID)
            session.streamClosed()
        }
        peerClosed?.whenComplete { _ in waker.finish() }

        var heartbeat = hub.heartbeat
        let initial = session.fragments.changes(since: 0)
        var sent = initial.version
        try await writer.write(
            ByteBuffer(
                string: ServerSentEvent.retry(milliseconds: reconnectDelayMilliseconds)
                    + ServerSentEvent.patch(id: sent, fragments: initial.fragments)
            )
        )
        try await withGracefulShutdownHandler {
            for await _ in wakes {
                var text = ""
                let changes = session.fragments.changesAndNavigation(since: sent)
                sent = changes.version
                if !changes.fragments.isEmpty {
                    text += ServerSentEvent.patch(id: sent, fragments: changes.fragments)
                }
                if let location = changes.navigate {
                    text += ServerSentEvent.navigate(id: sent, location: location)
                }
                let beat = hub.heartbeat
                if beat != heartbeat {
                    heartbeat = beat
                    if text.isEmpty { text = ServerSentEvent.heartbeat }
                }
                if !text.isEmpty {
                    try await writer.write(ByteBuffer(string: text))
                }
            }
        } onGracefulShutdown: {
            waker.finish()
        }
        try await writer.finish(nil)
    }
}
