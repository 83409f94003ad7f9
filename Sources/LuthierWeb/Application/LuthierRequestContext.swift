import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage plus the connection's channel, which an
/// event stream needs to notice that its client went away without waiting for a failed write.
public struct LuthierRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
