import NIOCore
import NIOPosix
import Synchronization

/// The least a server can do to send one event to many open streams, for comparison with
/// Luthier's broadcast: SwiftNIO alone, two event loops as Luthier runs on this machine, every
/// stream already open and answered, and the event encoded once beforehand. No HTTP handlers, no
/// store, no session, no database: it writes the same bytes a kiosk gets for an order.
///
/// `fanOut` writes them as Luthier's streams do: each stream told on its own, writing and
/// flushing on its event loop.
final class BareBroadcastServer: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let streams: StreamList

    private init(port: Int, group: MultiThreadedEventLoopGroup, channel: any Channel, streams: StreamList) {
        self.port = port
        self.group = group
        self.channel = channel
        self.streams = streams
    }

    /// Listens on a free loopback port.
    static func start(threads: Int) async throws -> BareBroadcastServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
        let streams = StreamList()
        let opened: @Sendable (any Channel) -> Void = { channel in streams.list.withLock { $0.append(channel) } }
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 4096)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(BareStreamHandler(opened: opened))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        return BareBroadcastServer(
            port: channel.localAddress?.port ?? 0, group: group, channel: channel, streams: streams)
    }

    var openStreams: Int { streams.list.withLock { $0.count } }

    /// Sends `event` (one chunk of the streams' chunked bodies) to every open stream.
    func fanOut(_ event: ByteBuffer) {
        let streams = streams.list.withLock { $0 }
        for stream in streams {
            stream.eventLoop.execute { stream.writeAndFlush(event, promise: nil) }
        }
    }

    func stop() async {
        let streams = streams.list.withLock { $0 }
        for stream in streams { stream.close(promise: nil) }
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    /// One server-sent event as a chunk of a chunked body.
    static func chunk(_ event: String) -> ByteBuffer {
        var buffer = ByteBuffer()
        buffer.writeString(String(event.utf8.count, radix: 16) + "\r\n" + event + "\r\n")
        return buffer
    }

    /// A `patch` event with one fragment for `target`, padded to about `bytes` on the wire.
    static func patch(target: String, id: Int, bytes: Int) -> String {
        let head = "id: \(id)\nevent: patch\ndata: {\"fragments\":[{\"target\":\"\(target)\",\"html\":\""
        let tail = "\"}]}\n\n"
        let padding = max(bytes - head.utf8.count - tail.utf8.count - 8, 0)
        return head + String(repeating: "x", count: padding) + tail
    }
}

/// The streams answered so far.
private final class StreamList: Sendable {
    let list = Mutex<[any Channel]>([])
}

/// Reads a request's head, answers it as an endless event stream with a first patch, and
/// registers the connection; whatever else the client sends is ignored.
private final class BareStreamHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// Told the connection once its request has been answered.
    private let opened: @Sendable (any Channel) -> Void
    private var received: [UInt8] = []
    private var answered = false

    init(opened: @escaping @Sendable (any Channel) -> Void) { self.opened = opened }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        received += unwrapInboundIn(data).readableBytesView
        guard received.count >= 4, received.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)) else { return }
        answered = true
        var head = context.channel.allocator.buffer(capacity: 128)
        head.writeString(
            "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n")
        context.write(wrapOutboundOut(head), promise: nil)
        let first = BareBroadcastServer.chunk(BareBroadcastServer.patch(target: "kiosk-clock", id: 0, bytes: 200))
        context.writeAndFlush(wrapOutboundOut(first), promise: nil)
        opened(context.channel)
    }
}
