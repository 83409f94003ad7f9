import Foundation
import LuthierFeatures
import SQLMachinery

extension SessionStore {
    /// Sessions kept in the workshop's database (`sessions` table), as JSON snapshots, so that a
    /// customer's build, cart and checkout survive a restart of the server; times are the store's
    /// `now`. With `sharing` (PostgreSQL), each save and deletion is told to every instance on the
    /// database, which holds a session only while its revision is the newest.
    public static func live(store: WorkshopStore, sharing: Sharing? = nil) -> SessionStore {
        SessionStore(
            load: { key in try await store.loadSession(key: key) },
            save: { key, base, snapshot in try await store.saveSession(key: key, base: base, snapshot: snapshot) },
            delete: { key in try await store.deleteSession(key: key) },
            replace: { old, key, snapshot in
                try await store.saveSession(key: key, base: 0, snapshot: snapshot, replacing: old)
            },
            deleteUnused: { before, leftoverBefore in
                try await store.deleteSessions(unusedBefore: before, leftoversUnusedBefore: leftoverBefore)
            },
            sharing: sharing
        )
    }

    /// Sessions kept on the PostgreSQL `database` through `store`, told between its instances.
    public static func live(store: WorkshopStore, postgres database: PostgreSQLDatabase) -> SessionStore {
        live(
            store: store,
            sharing: Sharing(
                notices: { database.sessionRevisions() },
                storedRevision: { key in try await store.storedSessionRevision(key: key) }))
    }
}
