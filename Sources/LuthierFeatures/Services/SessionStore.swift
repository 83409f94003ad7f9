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
    /// The session stored under `key`, marking it used now; nil if there is none.
    public var load: @Sendable (_ key: String) async throws -> SessionSnapshot?
    /// Stores `snapshot` (its `revision`) under `key` if the revision stored there is `base`
    /// (nothing stored, for 0); otherwise changes nothing and says `.conflict`.
    public var save:
        @Sendable (_ key: String, _ base: Int, _ snapshot: SessionSnapshot) async throws -> SessionSaveOutcome
    /// Deletes the session stored under `key` (its id was replaced: the old one must stop working).
    public var delete: @Sendable (_ key: String) async throws -> Void
    /// Deletes every session last used before `before`, and those not worth keeping
    /// (`SessionSnapshot.isWorthKeeping`) last used before `leftoverBefore`; says how many went.
    public var deleteUnused: @Sendable (_ before: Date, _ leftoverBefore: Date) async throws -> Int
    /// Every save and deletion committed by any instance sharing the store (this one's too), for
    /// as long as the stream is read: how instances holding the same session learn of each
    /// other's changes. Nil for a store only one process uses (SQLite): there is none to tell.
    public var savedElsewhere: (@Sendable () -> AsyncStream<StoredSessionRevision>)?

    public init(
        load: @escaping @Sendable (_ key: String) async throws -> SessionSnapshot?,
        save:
            @escaping @Sendable (_ key: String, _ base: Int, _ snapshot: SessionSnapshot) async throws ->
            SessionSaveOutcome,
        delete: @escaping @Sendable (_ key: String) async throws -> Void,
        deleteUnused: @escaping @Sendable (_ before: Date, _ leftoverBefore: Date) async throws -> Int,
        savedElsewhere: (@Sendable () -> AsyncStream<StoredSessionRevision>)? = nil
    ) {
        self.load = load
        self.save = save
        self.delete = delete
        self.deleteUnused = deleteUnused
        self.savedElsewhere = savedElsewhere
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
