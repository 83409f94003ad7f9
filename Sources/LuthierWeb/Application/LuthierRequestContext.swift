import Hummingbird
import NIOCore

/// The per-request context: Hummingbird's core storage, the connection's channel (which an event
/// stream needs to notice that its client went away without waiting for a failed write), and the
/// request's session.
public struct LuthierRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel
    /// The customer's session as this request sees it; set by `SessionMiddleware`.
    public var session: RequestSession = .unavailable

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
