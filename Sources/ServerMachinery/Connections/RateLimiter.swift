import Synchronization

/// Counts events per key (a session, a client address) over a sliding window on an injected
/// clock, and refuses one past the limit with the time until the oldest leaves the window.
///
/// An event is taken before the work it allows and given back if the work fails, so that two
/// concurrent requests cannot both slip under the limit and a refused order costs nothing.
/// Memory is bounded: a key keeps at most `limit` instants, and past `maxKeys` keys the expired
/// ones are swept, then the least recently used.
public final class RateLimiter: Sendable {
    /// At most `limit` events in any `window`.
    public struct Rule: Sendable, Equatable {
        public var limit: Int
        public var window: Duration

        public init(limit: Int, window: Duration) {
            self.limit = max(limit, 1)
            self.window = window
        }

        /// `n` an hour.
        public static func perHour(_ n: Int) -> Self { Self(limit: n, window: .seconds(3_600)) }
    }

    public enum Decision: Equatable, Sendable {
        /// Counted at this instant (give it back if the work fails).
        case allowed(at: Duration)
        /// Over the limit: try again after this long.
        case refused(retryAfter: Duration)
    }

    private struct Entry {
        package var instants: [Duration]
        package var lastUsed: Duration
    }

    public let rule: Rule
    private let maxKeys: Int
    /// Time since the limiter was made, on its clock.
    private let elapsed: @Sendable () -> Duration
    private let entries = Mutex<[String: Entry]>([:])

    public init<C: Clock<Duration>>(rule: Rule, clock: C, maxKeys: Int = 100_000) {
        self.rule = rule
        self.maxKeys = max(maxKeys, 1)
        elapsed = clock.elapsedSinceNow()
    }

    /// Takes one event for `key` now, or says how long until one is allowed.
    public func take(_ key: String) -> Decision {
        let now = elapsed()
        return entries.withLock { entries in
            var entry = entries[key] ?? Entry(instants: [], lastUsed: now)
            entry.instants.removeAll { now - $0 >= rule.window }
            if entry.instants.count >= rule.limit, let oldest = entry.instants.first {
                entries[key] = entry
                return .refused(retryAfter: rule.window - (now - oldest))
            }
            entry.instants.append(now)
            entry.lastUsed = now
            if entries[key] == nil, entries.count >= maxKeys {
                Self.makeRoom(in: &entries, now: now, window: rule.window, maxKeys: maxKeys)
            }
            entries[key] = entry
            return .allowed(at: now)
        }
    }

    /// How long until `key` may have another event, without counting one: nil when it may now.
    public func wait(for key: String) -> Duration? {
        let now = elapsed()
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            let live = entry.instants.filter { now - $0 < rule.window }
            guard live.count >= rule.limit, let oldest = live.first else { return nil }
            return rule.window - (now - oldest)
        }
    }

    /// Gives back an event taken at `instant` whose work did not happen.
    public func giveBack(_ key: String, at instant: Duration) {
        entries.withLock { entries in
            guard var entry = entries[key], let index = entry.instants.lastIndex(of: instant) else { return }
            entry.instants.remove(at: index)
            entries[key] = entry.instants.isEmpty ? nil : entry
        }
    }

    /// Keys held now (for the bound's test).
    package var keyCount: Int { entries.withLock { $0.count } }

    /// Sweeps the keys with nothing left in the window; if that is not enough, drops the least
    /// recently used tenth (at least one), so that a full table costs one sort now and then.
    private static func makeRoom(in entries: inout [String: Entry], now: Duration, window: Duration, maxKeys: Int) {
        entries = entries.filter { _, entry in entry.instants.contains { now - $0 < window } }
        guard entries.count >= maxKeys else { return }
        let drop = max(maxKeys / 10, 1)
        for (key, _) in entries.sorted(by: { $0.value.lastUsed < $1.value.lastUsed }).prefix(drop) {
            entries[key] = nil
        }
    }
}
