import Foundation

/// Where sessions are kept between requests and across restarts: a struct of closures, so that
/// the live SQLite table, an in-memory store and a test double that fails are all just values.
///
/// Sessions are stored under a key derived from the cookie (never the cookie itself), with a
/// revision that only grows: a save that arrives after a newer one changes nothing, so saves may
/// race without ever going back in time.
public struct SessionStore: Sendable {
    /// The session stored under `key`, marking it used now; nil if there is none.
    public var load: @Sendable (_ key: String) async throws -> SessionSnapshot?
    /// Stores `snapshot` as revision `revision` of the session, unless a newer one is stored.
    public var save: @Sendable (_ key: String, _ revision: Int, _ snapshot: SessionSnapshot) async throws -> Void
    /// Deletes the session stored under `key` (its id was replaced: the old one must stop working).
    public var delete: @Sendable (_ key: String) async throws -> Void
    /// Deletes every session last used before `before`, and those not worth keeping
    /// (`SessionSnapshot.isWorthKeeping`) last used before `leftoverBefore`; says how many went.
    public var deleteUnused: @Sendable (_ before: Date, _ leftoverBefore: Date) async throws -> Int

    public init(
        load: @escaping @Sendable (_ key: String) async throws -> SessionSnapshot?,
        save: @escaping @Sendable (_ key: String, _ revision: Int, _ snapshot: SessionSnapshot) async throws -> Void,
        delete: @escaping @Sendable (_ key: String) async throws -> Void,
        deleteUnused: @escaping @Sendable (_ before: Date, _ leftoverBefore: Date) async throws -> Int
    ) {
        self.load = load
        self.save = save
        self.delete = delete
        self.deleteUnused = deleteUnused
    }
}
