import Foundation
import LuthierFeatures
import Synchronization

/// Sessions kept in memory with the live store's rules (a newer revision wins), which a test can
/// read, or make fail.
final class MemorySessionStore: Sendable {
    struct Stored: Sendable {
        var revision: Int
        var snapshot: SessionSnapshot
    }

    private struct State {
        var rows: [String: Stored] = [:]
        var saves = 0
        var failing = false
        /// Deleted keys, which no later save brings back (as the live store's tombstones).
        var deleted: Set<String> = []
    }

    private let state = Mutex(State())

    /// What is stored under each key.
    var rows: [String: Stored] { state.withLock { $0.rows } }

    var saves: Int { state.withLock { $0.saves } }

    /// Makes every call fail (a locked or full database) until called with false.
    func fail(_ failing: Bool = true) { state.withLock { $0.failing = failing } }

    struct StoreDown: Error {}

    var client: SessionStore {
        SessionStore(
            load: { key in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    return state.rows[key]?.snapshot
                }
            },
            save: { key, revision, snapshot in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    state.saves += 1
                    if state.deleted.contains(key) { return }
                    if let stored = state.rows[key], stored.revision >= revision { return }
                    state.rows[key] = Stored(revision: revision, snapshot: snapshot)
                }
            },
            delete: { key in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    state.rows[key] = nil
                    state.deleted.insert(key)
                }
            },
            deleteUnused: { _, _ in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    return 0
                }
            }
        )
    }
}
