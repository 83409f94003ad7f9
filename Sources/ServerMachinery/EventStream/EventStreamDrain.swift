import ServiceLifecycle

/// Holds the server's graceful shutdown until every event stream has ended.
///
/// Each stream is sent by its connection's ``EventStreamChannelHandler``, not by a task of the
/// server's, so the server's own shutdown returns as soon as it has asked the connections to
/// quiesce. This service is shut down right after the server: it waits until the streams have
/// answered that request (each with its reconnect hint and the end of its body) before the
/// services behind it (the sessions, the showroom) finish the stores those streams follow. The
/// service group's shutdown limit bounds the wait, as it bounds every service's.
package struct EventStreamDrain: Service {
    package let hub: EventStreamHub

    package init(hub: EventStreamHub) {
        self.hub = hub
    }

    package func run() async throws {
        // Cancelled instead of shut down gracefully: there is nothing to wait for.
        guard (try? await gracefulShutdown()) != nil else { return }
        await hub.untilEveryStreamHasEnded()
    }
}
