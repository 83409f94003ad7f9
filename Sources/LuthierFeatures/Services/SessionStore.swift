import Foundation

/// Where sessions are kept between requests and across restarts: a struct of closures, so that
/// the live SQLite table, PostgreSQL, an in-memory store and a test double that fails are all just
/// values.
///
/// Sessions are stored under a key derived from the cookie (never the cookie itself), with a
/// revision that grows by one with every save. A save is a compare-and-set on that revision: it
/// stores only over the revision its writer last saw (`base`). Saves of one session are made one
/// at a time by the instance that holds it (`Session`), so a save that finds another revision
/// stored has met another instance's save (or the session's deletion): the writer reads the stored
/// one, acts again on it and saves over it. Nothing either writer was told "yes" for is lost.
public struct SessionStore: Sendable {
    /// The session stored under `key`, marking it used now, or word that an order replaced its
    /// id; nil if nothing is stored under it.
    public var load: @Sendable (_ key: String) async throws -> StoredSession?
    /// Stores `snapshot` (its `revision`) under `key` if the revision stored there is `base`
    /// (nothing stored, for 0); otherwise changes nothing and says `.conflict`.
    public var save:
        @Sendable (_ key: String, _ base: Int, _ snapshot: SessionSnapshot) async throws -> SessionSaveOutcome
    /// Deletes the session stored under `key` (its id was replaced: the old one must stop working).
    public var delete: @Sendable (_ key: String) async throws -> Void
    /// Stores `snapshot` under `key`, a new id with nothing stored under it, and deletes the
    /// session stored under `old`, as one write: should it fail, neither is done. A session whose
    /// id an order replaced saves so, so that the new id never works beside the old one, and the
    /// old never outlives the new one unsaved. `.conflict` if something was stored under `key`
    /// after all; the old one is deleted all the same, since it must stop working.
    public var replace:
        @Sendable (_ old: String, _ key: String, _ snapshot: SessionSnapshot) async throws -> SessionSaveOutcome
    /// Deletes every session last used before `before`, and those not worth keeping
    /// (`SessionSnapshot.isWorthKeeping`) last used before `leftoverBefore`; says how many went.
    public var deleteUnused: @Sendable (_ before: Date, _ leftoverBefore: Date) async throws -> Int
    /// How instances sharing the store learn of each other's saves; nil for a store only one
    /// process uses (SQLite): there is none to learn of.
    public var sharing: Sharing?

    /// What a store shared by several instances tells them.
    public struct Sharing: Sendable {
        /// Every save and deletion committed by any instance (this one's too), for as long as the
        /// stream is read: a session another instance holds is read again there.
        public var notices: @Sendable () -> AsyncStream<SessionStoreNotice>
        /// The revision stored under `key` now (nil: none; a deleted one's is `Int64.max`), read
        /// without marking it used: the check an instance makes before serving a session it
        /// holds, since a notice may not have arrived yet when the customer's next request does.
        public var storedRevision: @Sendable (_ key: String) async throws -> Int?

        public init(
            notices: @escaping @Sendable () -> AsyncStream<SessionStoreNotice>,
            storedRevision: @escaping @Sendable (_ key: String) async throws -> Int?
        ) {
            self.notices = notices
            self.storedRevision = storedRevision
        }
    }

    public init(
        load: @escaping @Sendable (_ key: String) async throws -> StoredSession?,
        save:
            @escaping @Sendable (_ key: String, _ base: Int, _ snapshot: SessionSnapshot) async throws ->
            SessionSaveOutcome,
        delete: @escaping @Sendable (_ key: String) async throws -> Void,
        replace:
            (
                @Sendable (_ old: String, _ key: String, _ snapshot: SessionSnapshot) async throws -> SessionSaveOutcome
            )? =
            nil,
        deleteUnused: @escaping @Sendable (_ before: Date, _ leftoverBefore: Date) async throws -> Int,
        sharing: Sharing? = nil
    ) {
        self.load = load
        self.save = save
        self.delete = delete
        // A store that cannot write both at once saves, then deletes: the old id may then outlive
        // a failed deletion, to expire as a leftover.
        self.replace =
            replace ?? { old, key, snapshot in
                let outcome = try await save(key, 0, snapshot)
                try await delete(old)
                return outcome
            }
        self.deleteUnused = deleteUnused
        self.sharing = sharing
    }
}

/// What the store holds under a session's key.
///
/// A replaced id is told apart from one never stored: an issued id with nothing stored is a
/// visitor's, whose first post makes its session under it; a replaced one must never be taken up
/// again, or the browser still holding it (an order's answer lost on the way, or an id planted
/// there) would make a session whose every save meets the tombstone.
public enum StoredSession: Sendable, Equatable {
    /// The session as last saved.
    case saved(SessionSnapshot)
    /// Nothing: an order gave the session a new id, and this one stopped working.
    case replaced

    /// The session, if one is stored.
    public var snapshot: SessionSnapshot? {
        guard case .saved(let snapshot) = self else { return nil }
        return snapshot
    }
}

/// What a compare-and-set save of a session did.
public enum SessionSaveOutcome: Sendable, Equatable {
    /// Stored over the revision the writer saw.
    case saved
    /// Nothing stored: another revision was stored since the writer's (another instance saved the
    /// session, or it was deleted). The writer reads the session again.
    case conflict
}

extension SessionStore {
    /// Sessions whose every call throws `WorkshopClient.Unimplemented`, told to `report` first.
    public static func failing(reporting report: @escaping UnexpectedCallReport = { _ in }) -> SessionStore {
        SessionStore(
            load: { _ in throw unexpected("SessionStore.load", report) },
            save: { _, _, _ in throw unexpected("SessionStore.save", report) },
            delete: { _ in throw unexpected("SessionStore.delete", report) },
            replace: { _, _, _ in throw unexpected("SessionStore.replace", report) },
            deleteUnused: { _, _ in throw unexpected("SessionStore.deleteUnused", report) }
        )
    }
}
