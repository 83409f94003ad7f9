import LuthierFeatures
import Synchronization

/// The live sessions, found by the id in their cookie.
///
/// Capped, so that a flood of new visitors gets a polite 503 instead of exhausting memory; idle
/// sessions are dropped by `sweep()`, which the session service calls on a timer.
public final class SessionRegistry: Sendable {
    /// Full sweep intervals of idleness after which a session is dropped; the sweep interval is the
    /// idle timeout divided by this, so a session goes between 1 and 1¼ idle timeouts after last use.
    public static let sweepsBeforeDrop = 4

    public let maxSessions: Int
    private let renderer: PageRenderer
    private let environment: LuthierEnvironment
    private let sessions = Mutex<[SessionID: Session]>([:])
    private let created: AsyncStream<Session>.Continuation
    /// Sessions as they are created, for the service that runs their output drivers.
    let newSessions: AsyncStream<Session>

    public init(maxSessions: Int, renderer: PageRenderer, environment: LuthierEnvironment) {
        self.maxSessions = maxSessions
        self.renderer = renderer
        self.environment = environment
        (newSessions, created) = AsyncStream<Session>.makeStream()
    }

    public var count: Int { sessions.withLock { $0.count } }

    /// The session a cookie names, if the server issued it and it is still live.
    public func session(forCookie value: String?) -> Session? {
        guard let value, let id = SessionID(rawValue: value) else { return nil }
        let session = sessions.withLock { $0[id] }
        session?.touch()
        return session
    }

    /// A new session with a fresh id, or nil when the cap is reached.
    public func createSession() -> Session? {
        let orderKey = SessionID.random().rawValue
        let session = Session(
            id: .random(),
            orderKey: orderKey,
            build: BuildViewModel(environment: environment, sessionKey: orderKey),
            renderer: renderer
        )
        let added = sessions.withLock { sessions in
            guard sessions.count < maxSessions else { return false }
            sessions[session.id] = session
            return true
        }
        guard added else {
            session.close()
            return nil
        }
        created.yield(session)
        return session
    }

    /// One idle sweep: drops sessions idle for more than `sweepsBeforeDrop` sweeps in a row.
    @discardableResult
    public func sweep() -> Int {
        let dropped = sessions.withLock { sessions in
            let idle = sessions.values.filter { $0.sweep(limit: Self.sweepsBeforeDrop) }
            for session in idle { sessions[session.id] = nil }
            return idle
        }
        for session in dropped { session.close() }
        return dropped.count
    }

    /// Ends the stream of new sessions (on shutdown) and closes every session.
    func closeAll() {
        created.finish()
        let all = sessions.withLock { sessions in
            let all = Array(sessions.values)
            sessions.removeAll()
            return all
        }
        for session in all { session.close() }
    }
}
