import NIOCore
import NIOPosix
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What became of each post of a paced run, by kind, so that an overloaded server reads as what
/// it did: answered (`204`), refused at once (`503` with `Retry-After`), or left to fail at the
/// socket (a connect that timed out, a reset, a connection closed without an answer).
///
/// Also the time from sending each post to its answer, whatever the answer: a refusal that takes
/// seconds is not "at once".
final class PostOutcomes: Sendable {
    private struct State {
        var counts: [String: Int] = [:]
        var answerTimes: [Duration] = []
        var refusalTimes: [Duration] = []
    }

    private let state = Mutex(State())

    /// The kinds a failure at the socket is counted under.
    static let connectTimeout = "connect timed out"
    static let connectRefused = "connect refused"
    static let reset = "reset by the server"
    static let closedEarly = "closed without an answer"
    static let noAnswer = "no answer in time"

    /// Counts an answer with its status, and whether a `503` said when to come back.
    func answered(status: Int, retryAfter: String?, after time: Duration) {
        state.withLock { state in
            let kind =
                switch (status, retryAfter) {
                case (204, _): "answered 204"
                case (503, let seconds?): "refused 503, Retry-After: \(seconds)"
                default: "answered \(status)"
                }
            state.counts[kind, default: 0] += 1
            state.answerTimes.append(time)
            if status == 503 { state.refusalTimes.append(time) }
        }
    }

    /// Counts a post that got no answer, under the kind of its error.
    func failed(_ error: any Error) {
        let kind = Self.kind(of: error)
        state.withLock { $0.counts[kind, default: 0] += 1 }
    }

    var counts: [String: Int] { state.withLock { $0.counts } }
    var answerTimes: Percentiles { Percentiles(state.withLock { $0.answerTimes }) }
    var refusalTimes: Percentiles { Percentiles(state.withLock { $0.refusalTimes }) }

    /// The number of posts that got no HTTP answer at all.
    var unanswered: Int {
        counts.filter { !$0.key.hasPrefix("answered") && !$0.key.hasPrefix("refused") }.values.reduce(0, +)
    }

    /// The kind a failed post is counted under: SwiftNIO reports a connect's failures wrapped in
    /// `NIOConnectionError`, and a socket's in `IOError` with its `errno`.
    static func kind(of error: any Error) -> String {
        if let error = error as? NIOConnectionError {
            let inner = error.connectionErrors.map(\.error) + [error.dnsAAAAError, error.dnsAError].compactMap { $0 }
            if inner.contains(where: { kind(of: $0) == connectTimeout }) { return connectTimeout }
            return inner.first.map { kind(of: $0) } ?? connectRefused
        }
        if let error = error as? ChannelError {
            switch error {
            case .connectTimeout: return connectTimeout
            case .ioOnClosedChannel, .alreadyClosed, .eof: return closedEarly
            default: return "\(error)"
            }
        }
        if let error = error as? IOError {
            switch error.errnoCode {
            case ECONNRESET, EPIPE: return reset
            case ECONNREFUSED: return connectRefused
            case ETIMEDOUT: return connectTimeout
            default: return "\(error)"
            }
        }
        if case LoadError.closedBeforeResponse = error { return closedEarly }
        return "\(error)"
    }
}
