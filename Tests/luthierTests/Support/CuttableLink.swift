import NIOCore
import NIOPosix

/// A TCP link to a server (here PostgreSQL) that a test cuts and mends, as a network is cut: a
/// process connects to ``port`` instead of the server, and while the link is cut nothing crosses
/// in either direction and nothing is closed. What either side sends meanwhile waits, as TCP
/// retransmits it, and crosses once the link is mended, followed by the close of a side that
/// ended the connection meanwhile. Neither end learns of the cut but by its own time-outs.
///
/// Every connection's two channels and the link's state live on one event loop, so nothing is
/// shared between threads.
final class CuttableLink: Sendable {
    let port: Int
    private let group: MultiThreadedEventLoopGroup
    private let server: any Channel
    private let state: NIOLoopBound<LinkState>

    private init(port: Int, group: MultiThreadedEventLoopGroup, server: any Channel, state: NIOLoopBound<LinkState>) {
        self.port = port
        self.group = group
        self.server = server
        self.state = state
    }

    /// A link listening on a free loopback port, forwarding each connection to `host`:`targetPort`.
    static func start(to host: String, port targetPort: Int) async throws -> CuttableLink {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let loop = group.next()
        let state = try await loop.submit { NIOLoopBound(LinkState(), eventLoop: loop) }.get()
        let server = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { accepted in
                accepted.eventLoop.makeCompletedFuture {
                    let near = Forwarder(state: state.value)
                    state.value.forwarders.append(near)
                    try accepted.pipeline.syncOperations.addHandler(near)
                    let nearOnLoop = NIOLoopBound(near, eventLoop: accepted.eventLoop)
                    ClientBootstrap(group: accepted.eventLoop)
                        .channelInitializer { upstream in
                            upstream.eventLoop.makeCompletedFuture {
                                let far = Forwarder(state: state.value)
                                far.peer = accepted
                                state.value.forwarders.append(far)
                                try upstream.pipeline.syncOperations.addHandler(far)
                            }
                        }
                        .connect(host: host, port: targetPort)
                        .whenComplete { result in
                            switch result {
                            case .success(let upstream):
                                nearOnLoop.value.peer = upstream
                                nearOnLoop.value.flushIfMended()
                            case .failure:
                                accepted.close(promise: nil)
                            }
                        }
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        guard let port = server.localAddress?.port else { throw TestFailure("the link has no port") }
        return CuttableLink(port: port, group: group, server: server, state: state)
    }

    /// Stops everything crossing, in both directions, on every connection (new ones included).
    func cut() async throws {
        try await state.eventLoop.submit { self.state.value.isCut = true }.get()
    }

    /// Lets through what waited, then everything again.
    func mend() async throws {
        try await state.eventLoop.submit {
            self.state.value.isCut = false
            for forwarder in self.state.value.forwarders { forwarder.flushIfMended() }
        }.get()
    }

    func close() async {
        try? await server.close()
        try? await group.shutdownGracefully()
    }
}

/// The link's state, on its event loop.
private final class LinkState {
    var isCut = false
    var forwarders: [Forwarder] = []
}

/// One direction of one connection: what its channel reads goes to `peer`, unless the link is
/// cut or the peer not connected yet; then it waits, with the channel's close after it.
private final class Forwarder: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    let state: LinkState
    var peer: (any Channel)?
    private var waiting: [ByteBuffer] = []
    private var closed = false

    init(state: LinkState) { self.state = state }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        waiting.append(unwrapInboundIn(data))
        flushIfMended()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closed = true
        flushIfMended()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Sends what waited to the peer, and closes it after if this side has closed; nothing while
    /// the link is cut.
    func flushIfMended() {
        guard !state.isCut, let peer else { return }
        for buffer in waiting { peer.write(buffer, promise: nil) }
        waiting.removeAll()
        peer.flush()
        if closed { peer.close(promise: nil) }
    }
}
