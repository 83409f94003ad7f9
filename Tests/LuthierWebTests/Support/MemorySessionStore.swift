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
                    if let stored = state.rows[key], stored.revision >= revision { return }
                    state.rows[key] = Stored(revision: revision, snapshot: snapshot)
                }
            },
            deleteUnused: { _ in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    return 0
                }
            }
        )
    }
}
