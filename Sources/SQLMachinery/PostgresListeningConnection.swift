import PostgresNIO
import Synchronization

/// The one connection an instance listens on, whatever channels it follows.
///
/// At each `NOTIFY` that commits, PostgreSQL wakes every connection listening in the database,
/// whatever its channel; a connection with nothing on its channel wakes for nothing. With a
/// connection per channel, every session save and every order woke four server processes of
/// each instance where one would do. Each follower listens on this one for its own channel
/// (PostgresNIO keeps several listens apart on one connection); the last one to stop closes it;
/// once it has dropped, the next to ask connects again, once for all of them.
package final class PostgresListeningConnection: Sendable {
    private struct State {
        /// The connection, or its connecting, shared by every follower that asks meanwhile.
        var current: Task<PostgresConnection, any Error>?
        var followers = 0
    }

    private let state = Mutex(State())
    private let connect: @Sendable () async throws -> PostgresConnection

    package init(connect: @escaping @Sendable () async throws -> PostgresConnection) {
        self.connect = connect
    }

    /// Counts a follower in; each `follow` is ended with one ``stopFollowing()``.
    package func follow() {
        state.withLock { $0.followers += 1 }
    }

    /// Counts a follower out; the last closes the connection.
    package func stopFollowing() async {
        let last: Task<PostgresConnection, any Error>? = state.withLock { state in
            state.followers -= 1
            guard state.followers == 0 else { return nil }
            defer { state.current = nil }
            return state.current
        }
        try? await last?.value.close()
    }

    /// The open connection, connecting if there is none (or it has dropped).
    package func connection() async throws -> PostgresConnection {
        let attempt = state.withLock { state in
            if let current = state.current { return current }
            let connect = self.connect
            let attempt = Task { try await connect() }
            state.current = attempt
            return attempt
        }
        do {
            let connection = try await attempt.value
            // Dropped before this follower got to it: the next to ask connects again.
            if connection.isClosed { forget(attempt) }
            return connection
        } catch {
            forget(attempt)
            throw error
        }
    }

    /// Forgets the connection once it has dropped, so that the next follower to ask connects
    /// anew; one whose listen ended for another reason (its own cancelling) leaves it open.
    package func dropped(_ connection: PostgresConnection) async {
        guard connection.isClosed, let current = state.withLock({ $0.current }) else { return }
        // Another follower may have replaced it already: only the connection it is is forgotten.
        if (try? await current.value) === connection { forget(current) }
    }

    private func forget(_ attempt: Task<PostgresConnection, any Error>) {
        state.withLock { state in
            if state.current == attempt { state.current = nil }
        }
    }
}
