import LuthierFeatures
import Synchronization

/// The shop owner's signed-in browsers: a random id per sign-in, living a short while on the
/// injected clock. The admin cookie carries that id, never the admin token itself, so a stolen
/// cookie is worth minutes and signing out ends it at once.
final class AdminSessions: Sendable {
    /// How long a sign-in lasts (the cookie's `Max-Age` too).
    let lifetime: Duration
    private let maxSessions: Int
    private let elapsed: @Sendable () -> Duration
    /// Each id with the instant it ends.
    private let sessions = Mutex<[String: Duration]>([:])

    init<C: Clock<Duration>>(lifetime: Duration, clock: C, maxSessions: Int = 64) {
        self.lifetime = lifetime
        self.maxSessions = max(maxSessions, 1)
        elapsed = stopwatch(on: clock)
    }

    /// A new signed-in session's id (64 hex digits from the system's random source).
    func signIn() -> String {
        let id = SessionID.random().cookieValue
        let now = elapsed()
        sessions.withLock { sessions in
            sessions = sessions.filter { $0.value > now }
            if sessions.count >= maxSessions, let oldest = sessions.min(by: { $0.value < $1.value }) {
                sessions[oldest.key] = nil
            }
            sessions[id] = now + lifetime
        }
        return id
    }

    /// Whether `id` names a sign-in that has not ended.
    func isSignedIn(_ id: String?) -> Bool {
        guard let id else { return false }
        let now = elapsed()
        return sessions.withLock { sessions in
            guard let end = sessions[id] else { return false }
            if end <= now {
                sessions[id] = nil
                return false
            }
            return true
        }
    }

    func signOut(_ id: String?) {
        guard let id else { return }
        _ = sessions.withLock { $0.removeValue(forKey: id) }
    }
}
