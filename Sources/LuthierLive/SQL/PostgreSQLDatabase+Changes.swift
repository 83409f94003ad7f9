import LuthierDomain
import LuthierFeatures
import SQLMachinery

/// The workshop's changes and the session saves, between instances: every write that places,
/// moves or changes an order notifies in its transaction (``SQLChannel/workshop``), so the
/// notification goes out when (and only if) the write commits; every instance listens and tells
/// its floor, which reads the order as stored.
extension PostgreSQLDatabase {
    /// Every change another instance commits, for as long as the stream is read, after
    /// `listening` once the channel is listened to (and again after each reconnection): the
    /// `listening` that follows a reconnection tells the reader to read the workshop again.
    ///
    /// This instance's own changes come back too, and are skipped: its floor was told of each as
    /// it was made (an order placed, moved, or changed by its admin), and reading the order back
    /// would cost a transaction per order for nothing.
    public func changes() -> AsyncStream<WorkshopChange> {
        let instance = self.instance
        return notifications(on: channel(SQLChannel.workshop), listening: .listening) {
            Self.change(told: $0, notFrom: instance)
        }
    }

    /// The change a workshop notification's `payload` tells (`placed:LU-7K3M9Q abc123`: the
    /// change, then the instance that made it), unless `instance` made it.
    static func change(told payload: String, notFrom instance: String) -> WorkshopChange? {
        let parts = payload.split(separator: " ", maxSplits: 1)
        if parts.count == 2, parts[1] == instance { return nil }
        return parts.first.flatMap { WorkshopChange(payload: String($0)) }
    }

    /// Every session save and deletion any instance commits (this one's too), for as long as the
    /// stream is read, after `listening` once the channel is listened to (and again after each
    /// reconnection: saves committed in between were not told).
    public func sessionRevisions() -> AsyncStream<SessionStoreNotice> {
        notifications(on: channel(SQLChannel.sessions), listening: .listening) { payload in
            StoredSessionRevision(payload: payload).map(SessionStoreNotice.saved)
        }
    }
}
