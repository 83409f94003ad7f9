import Foundation
import Logging
import PostgresNIO

/// What the instances tell each other: PostgreSQL's own `LISTEN`/`NOTIFY`, not a bus of our own.
/// A write that notifies does so in its transaction, so the notification goes out when (and only
/// if) the write commits.
extension PostgreSQLDatabase {
    /// The channel named `name` the instances share: one per schema, as the locks are.
    package func channel(_ name: String) -> String {
        "luthier_" + name + (location.schema.map { "_\($0)" } ?? "")
    }

    /// The name `channel` has on this database: one per schema, as the locks are.
    package func channel(_ channel: SQLChannel) -> String { self.channel(channel.name) }

    /// Sends `payload` on `channel` now (outside a transaction: nothing to wait for).
    package func notify(_ payload: String, on channel: String) async throws {
        try await execute("SELECT pg_notify(\(channel), \(payload))")
    }

    /// The notifications on `channel`, parsed by `parse` (others are skipped), after `listening`
    /// (if any) each time the channel is listened to.
    ///
    /// It listens on the instance's one listening connection (``PostgresListeningConnection``),
    /// not a pooled one (which goes back to the pool). If that connection drops, it listens again
    /// after ``reconnectDelay`` on the store's clock. The stream keeps at most the newest 1,024
    /// elements for a reader that lags: each only says what to read again.
    package func notifications<Element: Sendable>(
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
    package static let reconnectDelay = Duration.seconds(1)
}
