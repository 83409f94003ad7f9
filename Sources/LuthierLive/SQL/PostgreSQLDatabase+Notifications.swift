import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import PostgresNIO

/// The workshop's changes between instances: PostgreSQL's own `LISTEN`/`NOTIFY`, not a bus of
/// our own. Every write that places, moves or changes an order notifies in its transaction, so
/// the notification goes out when (and only if) the write commits; every instance listens and
/// tells its floor, which reads the order as stored.
extension PostgreSQLDatabase {
    /// The channel named `name` the shop's instances share: one per schema, as the locks are.
    func channel(_ name: String) -> String { "luthier_" + name + (location.schema.map { "_\($0)" } ?? "") }

    /// The name `channel` has on this database: one per schema, as the locks are.
    func channel(_ channel: SQLChannel) -> String { self.channel(channel.rawValue) }

    /// Sends `payload` on `channel` now (outside a transaction: nothing to wait for).
    func notify(_ payload: String, on channel: String) async throws {
        try await execute("SELECT pg_notify(\(channel), \(payload))")
    }

    /// Every change another instance commits, for as long as the stream is read, after
    /// `listening` once the channel is listened to (and again after each reconnection): the
    /// `listening` that follows a reconnection tells the reader to read the workshop again.
    ///
    /// This instance's own changes come back too, and are skipped: its floor was told of each as
    /// it was made (an order placed, moved, or changed by its admin), and reading the order back
    /// would cost a transaction per order for nothing.
    public func changes() -> AsyncStream<WorkshopChange> {
        let instance = self.instance
        return notifications(on: channel(.workshop), listening: .listening) {
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
        notifications(on: channel(.sessions), listening: .listening) { payload in
            StoredSessionRevision(payload: payload).map(SessionStoreNotice.saved)
        }
    }

    /// The notifications on `channel`, parsed by `parse` (others are skipped), after `listening`
    /// (if any) each time the channel is listened to.
    ///
    /// It listens on the instance's one listening connection (``PostgresListeningConnection``),
    /// not a pooled one (which goes back to the pool). If that connection drops, it listens again
    /// after ``reconnectDelay`` on the store's clock. The stream keeps at most the newest 1,024
    /// elements for a reader that lags: each only says what to read again.
    func notifications<Element: Sendable>(
        on channel: String, listening: Element?, _ parse: @escaping @Sendable (String) -> Element?
    ) -> AsyncStream<Element> {
        let (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .bufferingNewest(1_024))
        let (listener, logger, clock) = (self.listener, self.logger, self.clock)
        listener.follow()
        // The listening loop is I/O of the live store, owned by the stream: it ends when the
        // reader stops reading (`onTermination`), never outlives it.
        let loop = Task {
            while !Task.isCancelled {
                do {
                    let connection = try await listener.connection()
                    do {
                        try await connection.listen(on: channel) { notifications in
                            if let listening { continuation.yield(listening) }
                            for try await notification in notifications {
                                if let element = parse(notification.payload) { continuation.yield(element) }
                            }
                        }
                    } catch {
                        if !Task.isCancelled {
                            logger.warning(
                                "Notifications stopped; listening again shortly", metadata: ["channel": "\(channel)"])
                        }
                    }
                    await listener.dropped(connection)
                } catch {
                    logger.warning(
                        "Cannot listen for notifications; trying again shortly", metadata: ["channel": "\(channel)"])
                }
                try? await clock.sleep(for: Self.reconnectDelay)
            }
            await listener.stopFollowing()
            continuation.finish()
        }
        continuation.onTermination = { _ in loop.cancel() }
        return stream
    }

    /// How long the listener waits before listening again after its connection dropped.
    static let reconnectDelay = Duration.seconds(1)
}
