import Foundation
import LuthierFeatures
import Synchronization

/// Sessions kept in memory with the live store's rules (a compare-and-set on the revision, every
/// save and deletion told to every reader of `savedElsewhere`), which a test can read, or make
/// fail. Two apps on one store are two instances on one database.
final class MemorySessionStore: Sendable {
    struct Stored: Sendable {
        var revision: Int
        var snapshot: SessionSnapshot
    }

    private struct State {
        var rows: [String: Stored] = [:]
        var saves = 0
        /// Saves, deletions and replacements: each one write to the store.
        var writes = 0
        var loads = 0
        var failing = false
        var outrun = false
        /// Deleted keys, which no later save brings back (as the live store's tombstones).
        var deleted: Set<String> = []
        var listeners: [AsyncStream<SessionStoreNotice>.Continuation] = []
    }

    private let state = Mutex(State())
    /// Whether other instances share it: then it tells every save (`savedElsewhere`).
    private let shared: Bool

    /// - Parameter shared: whether several apps (instances) use it, told of each other's saves.
    init(shared: Bool = false) {
        self.shared = shared
    }

    /// Makes another instance save every session just before each save (until called with false):
    /// every save conflicts.
    func outrunEverySave(_ outrun: Bool = true) { state.withLock { $0.outrun = outrun } }

    /// Tells every listener it listens again (as after a dropped connection to the database).
    func listenAgain() {
        state.withLock { state in for listener in state.listeners { listener.yield(.listening) } }
    }

    /// Stores `snapshot` as another instance would whose notification has not arrived yet: a
    /// save nobody is told of.
    func storeUntold(_ key: String, _ snapshot: SessionSnapshot) {
        state.withLock { $0.rows[key] = Stored(revision: snapshot.revision, snapshot: snapshot) }
    }

    /// What is stored under each key.
    var rows: [String: Stored] { state.withLock { $0.rows } }

    var saves: Int { state.withLock { $0.saves } }

    var writes: Int { state.withLock { $0.writes } }

    var loads: Int { state.withLock { $0.loads } }

    /// Makes every call fail (a locked or full database) until called with false.
    func fail(_ failing: Bool = true) { state.withLock { $0.failing = failing } }

    struct StoreDown: Error {}

    var client: SessionStore {
        var sharing: SessionStore.Sharing?
        if shared {
            sharing = SessionStore.Sharing(
                notices: {
                    let (stream, continuation) = AsyncStream.makeStream(of: SessionStoreNotice.self)
                    continuation.yield(.listening)
                    self.state.withLock { $0.listeners.append(continuation) }
                    return stream
                },
                storedRevision: { key in
                    try self.state.withLock { state in
                        if state.failing { throw StoreDown() }
                        return state.deleted.contains(key) ? StoredSessionRevision.deleted : state.rows[key]?.revision
                    }
                })
        }
        return SessionStore(
            load: { key in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    state.loads += 1
                    if state.deleted.contains(key) { return .replaced }
                    return state.rows[key].map { .saved($0.snapshot) }
                }
            },
            save: { key, base, snapshot in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    state.writes += 1
                    return Self.save(key, base: base, snapshot, in: &state)
                }
            },
            delete: { key in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    state.writes += 1
                    Self.delete(key, in: &state)
                }
            },
            // One write, as the live store's.
            replace: { old, key, snapshot in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    state.writes += 1
                    let outcome = Self.save(key, base: 0, snapshot, in: &state)
                    Self.delete(old, in: &state)
                    return outcome
                }
            },
            deleteUnused: { _, _ in
                try self.state.withLock { state in
                    if state.failing { throw StoreDown() }
                    return 0
                }
            },
            sharing: sharing
        )
    }

    private static func save(_ key: String, base: Int, _ snapshot: SessionSnapshot, in state: inout State)
        -> SessionSaveOutcome
    {
        state.saves += 1
        if state.deleted.contains(key) { return .conflict }
        if state.outrun, var stored = state.rows[key] {
            stored.revision += 1
            stored.snapshot.revision = stored.revision
            state.rows[key] = stored
            return .conflict
        }
        guard (state.rows[key]?.revision ?? 0) == base else { return .conflict }
        state.rows[key] = Stored(revision: snapshot.revision, snapshot: snapshot)
        let told = StoredSessionRevision(key: key, revision: snapshot.revision)
        for listener in state.listeners { listener.yield(.saved(told)) }
        return .saved
    }

    private static func delete(_ key: String, in state: inout State) {
        state.rows[key] = nil
        state.deleted.insert(key)
        let told = StoredSessionRevision(key: key, revision: StoredSessionRevision.deleted)
        for listener in state.listeners { listener.yield(.saved(told)) }
    }
}
