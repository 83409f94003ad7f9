import LuthierFeatures
import ServiceLifecycle

/// The long-lived work behind the sessions, as one ServiceLifecycle service: an output driver per
/// session, the idle sweep, and the event-stream heartbeat, all on the injected clock. On graceful
/// shutdown it stops taking sessions, cancels the rest and closes every session's streams.
struct SessionService: Service {
    let registry: SessionRegistry
    let hub: EventStreamHub
    let clock: any Clock<Duration>
    let sweepInterval: Duration
    let heartbeatInterval: Duration

    func run() async throws {
        await withDiscardingTaskGroup { group in
            group.addTask {
                await repeatEvery(sweepInterval) { registry.sweep() }
            }
            group.addTask {
                await repeatEvery(heartbeatInterval) { hub.beat() }
            }
            for await session in registry.newSessions.cancelOnGracefulShutdown() {
                group.addTask { await session.drive() }
            }
            registry.closeAll()
            group.cancelAll()
        }
    }

    /// Runs `action` after every `interval` until cancelled.
    private func repeatEvery(_ interval: Duration, _ action: @Sendable () -> Void) async {
        while !Task.isCancelled {
            do {
                try await clock.sleep(for: interval)
            } catch {
                return
            }
            action()
        }
    }
}
