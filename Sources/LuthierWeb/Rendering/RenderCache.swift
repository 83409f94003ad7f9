import Synchronization

/// Rendered output remembered by what it was rendered from.
///
/// Mustache reads its contexts through reflection, which makes a full page cost about a
/// millisecond and a half; yet most renders repeat one already done: every new session shows the
/// standard guitar, a reload shows what the last one showed. Keyed by the template and the whole
/// value it renders, an entry can never be stale. Sessions showing the same thing also share one
/// copy of its text (strings and buffers are shared on copy), which is most of what an idle
/// session holds.
///
/// Bounded by entries and by bytes; the oldest entries go first (first in, first out: an entry
/// still in use is simply rendered again).
final class RenderCache<Value: Sendable>: Sendable {
    private struct Key: Hashable {
        let template: String
        let context: AnyHashable
    }

    private struct State {
        var entries: [Key: Value] = [:]
        /// Keys in the order they were added, from `head` on (the front is dropped lazily).
        var order: [Key] = []
        var head = 0
        var bytes = 0
        var hits = 0
        var misses = 0
    }

    private let state = Mutex(State())
    private let maxEntries: Int
    private let maxBytes: Int
    private let size: @Sendable (Value) -> Int

    init(maxEntries: Int, maxBytes: Int, size: @escaping @Sendable (Value) -> Int) {
        self.maxEntries = max(maxEntries, 1)
        self.maxBytes = max(maxBytes, 1)
        self.size = size
    }

    /// The value for `template` and `key`, rendered by `render` only when not remembered. The
    /// render runs outside the lock: two renders of the same new key may race, both correct.
    func value<Key: Hashable & Sendable>(template: String, key: Key, render: () -> Value) -> Value {
        if let cached = state.withLock({ state -> Value? in
            let value = state.entries[Self.Key(template: template, context: AnyHashable(key))]
            if value != nil { state.hits += 1 } else { state.misses += 1 }
            return value
        }) {
            return cached
        }
        let value = render()
        let cost = size(value)
        guard cost <= maxBytes else { return value }
        state.withLock { state in
            let entryKey = Self.Key(template: template, context: AnyHashable(key))
            guard state.entries[entryKey] == nil else { return }
            state.entries[entryKey] = value
            state.order.append(entryKey)
            state.bytes += cost
            while state.entries.count > maxEntries || state.bytes > maxBytes, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let removed = state.entries.removeValue(forKey: oldest) { state.bytes -= size(removed) }
            }
            if state.head > 64, state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
        return value
    }

    /// Entries, bytes held, and how often a value was found or rendered (for tests and tuning).
    var statistics: (entries: Int, bytes: Int, hits: Int, misses: Int) {
        state.withLock { ($0.entries.count, $0.bytes, $0.hits, $0.misses) }
    }
}
