import LuthierFeatures

extension SessionStore {
    /// Sessions kept in the workshop's SQLite file (`sessions` table), as JSON snapshots, so that
    /// a customer's build, cart and checkout survive a restart of the server.
    ///
    /// Every call uses GRDB's asynchronous access, so no Swift concurrency thread waits on the
    /// database; times are the store's `now`.
    public static func live(store: WorkshopStore) -> SessionStore {
        SessionStore(
            load: { key in try await store.loadSession(key: key) },
            save: { key, base, snapshot in try await store.saveSession(key: key, base: base, snapshot: snapshot) },
            delete: { key in try await store.deleteSession(key: key) },
            deleteUnused: { before, leftoverBefore in
                try await store.deleteSessions(unusedBefore: before, leftoversUnusedBefore: leftoverBefore)
            }
        )
    }

    /// Sessions kept in PostgreSQL, the same rows as in SQLite, each save and deletion told to
    /// every instance on the database (`LISTEN`/`NOTIFY`).
    public static func live(postgres store: PostgresStore) -> SessionStore {
        SessionStore(
            load: { key in try await store.loadSession(key: key) },
            save: { key, base, snapshot in try await store.saveSession(key: key, base: base, snapshot: snapshot) },
            delete: { key in try await store.deleteSession(key: key) },
            deleteUnused: { before, leftoverBefore in
                try await store.deleteSessions(unusedBefore: before, leftoversUnusedBefore: leftoverBefore)
            },
            sharing: Sharing(
                notices: { store.sessionRevisions() },
                storedRevision: { key in try await store.storedSessionRevision(key: key) })
        )
    }
}
