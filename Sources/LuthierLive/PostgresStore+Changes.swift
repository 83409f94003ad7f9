import Foundation
import Logging
import LuthierDomain
import PostgresNIO

/// The workshop's changes between instances: PostgreSQL's own `LISTEN`/`NOTIFY`, not a bus of
/// our own. Every write that places, moves or changes an order notifies in its transaction, so
/// the notification goes out when (and only if) the write commits; every instance listens and
/// tells its floor, which reads the order as stored.
extension PostgresStore {
    /// The channel the shop's instances share: one per schema, as the locks are.
    var changesChannel: String { "luthier_workshop" + (location.schema.map { "_\($0)" } ?? "") }

    /// Sends `change` on `channel` when the caller's transaction commits.
    static func notify(
        _ change: WorkshopChange, on channel: String, _ connection: PostgresConnection, _ logger: Logger
    ) async throws {
        try await connection.run("SELECT pg_notify(\(channel), \(change.payload))", logger)
    }

    /// Every change any instance commits (this one's too), for as long as the stream is read,
    /// after `listening` once the channel is listened to (and again after each reconnection).
    ///
    /// It listens on a connection of its own (a pooled one goes back to the pool). If that
    /// connection drops, it listens again after ``reconnectDelay`` on the store's clock; changes
    /// committed in between are not told; the `listening` that follows tells the reader to read
    /// the workshop again. The stream keeps at most the newest 1,024 changes for a reader that
    /// lags: each is only a number to read again.
    public func changes() -> AsyncStream<WorkshopChange> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: WorkshopChange.self, bufferingPolicy: .bufferingNewest(1_024))
        let (location, channel, logger, clock) = (self.location, changesChannel, self.logger, self.clock)
        // The listening loop is I/O of the live store, owned by the stream: it ends when the
        // reader stops reading (`onTermination`), never outlives it.
        let listening = Task {
            while !Task.isCancelled {
                do {
                    let connection = try await PostgresConnection.connect(
                        configuration: try location.connectionConfiguration(), id: 1, logger: logger)
                    do {
                        try await connection.listen(on: channel) { notifications in
                            continuation.yield(.listening)
                            for try await notification in notifications {
                                if let change = WorkshopChange(payload: notification.payload) {
                                    continuation.yield(change)
                                }
                            }
                        }
                    } catch {
                        logger.warning("The workshop's change notifications stopped; listening again shortly")
                    }
                    try? await connection.close()
                } catch {
                    logger.warning("Cannot listen for the workshop's change notifications; trying again shortly")
                }
                try? await clock.sleep(for: Self.reconnectDelay)
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in listening.cancel() }
        return stream
    }

    /// How long the listener waits before listening again after its connection dropped.
    static let reconnectDelay = Duration.seconds(1)
}
