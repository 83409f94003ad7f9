import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import ServerMachinery
import ServiceLifecycle

/// The long-lived work behind the sessions, as one ServiceLifecycle service: it starts each
/// session's output driver (callbacks, not a task), and runs the shop's analytics recorder, the
/// idle sweep, the event-stream heartbeat (which also ends the streams opened with an id an order
/// replaced, once its grace is over), the expiry of stored sessions and the reading of the
/// discount codes, and lets expired incidents go, all on the injected clock, and follows the sessions other instances save. On
/// graceful shutdown it stops taking sessions, cancels the rest and closes every session's streams.
struct SessionService: Service {
    let registry: SessionRegistry
    let hub: EventStreamHub
    let environment: LuthierEnvironment
    let sweepInterval: Duration
    let heartbeatInterval: Duration
    /// How long a stored session is kept after its last use.
    let retention: Duration
    /// How long one that holds nothing worth keeping (no cart, code, checkout or order) is kept.
    let leftoverRetention: Duration
    /// How often stored sessions past `retention` are deleted.
    let expiryInterval: Duration
    /// How often the discount codes are read from the database, and how (nil: never).
    var codes: (interval: Duration, read: @Sendable () async throws -> [DiscountCode])? = nil
    /// The failed requests kept for the admin; the sweep lets those past their retention go.
    let incidents: IncidentLog
    let logger: Logger

    func run() async throws {
        let analytics = registry.analytics
        let (record, logger) = (environment.analytics.record, logger)
        // Outside the group: on shutdown it records what the closed sessions left before it ends,
        // rather than being cancelled with the timers.
        async let analyticsRecorded: Void = analytics.run(recording: record) { error, events in
            logger.warning(
                "Cart actions were not recorded for analytics", metadata: ["events": "\(events)", "error": "\(error)"])
        }
        await withDiscardingTaskGroup { group in
            group.addTask {
                await repeatEvery(sweepInterval) {
                    registry.sweep()
                    incidents.dropExpired()
                }
            }
            group.addTask {
                await repeatEvery(heartbeatInterval) {
                    hub.beat()
                    for session in registry.endGraces() { hub.endStreams(ofSession: session.streamCapKey) }
                }
            }
            group.addTask {
                // Only when other instances share the store: it returns at once otherwise.
                await registry.followSavesElsewhere()
            }
            group.addTask {
                await deleteExpiredSessions()
                await repeatEvery(expiryInterval) { await deleteExpiredSessions() }
            }
            if let codes {
                group.addTask {
                    await repeatEvery(codes.interval) { await readCodes(codes.read) }
                }
            }
            for await session in registry.newSessions.cancelOnGracefulShutdown() {
                session.drive()
            }
            registry.closeAll()
            group.cancelAll()
        }
        analytics.finish()
        await analyticsRecorded
    }

    /// Reads the discount codes, and tells every cart when they differ from the book's: a code
    /// another process added works here, and one it expired stops working. A failed read keeps
    /// the book as it was until the next.
    func readCodes(_ read: @Sendable () async throws -> [DiscountCode]) async {
        do {
            let codes = try await read()
            if codes != registry.discounts.current { registry.discountsChanged(to: codes) }
        } catch {
            logger.debug("The discount codes could not be read", metadata: ["error": "\(error)"])
        }
    }

    /// Deletes stored sessions unused for longer than `retention`, and anonymous leftovers
    /// (nothing worth keeping) unused for longer than `leftoverRetention`.
    func deleteExpiredSessions() async {
        let now = environment.now()
        let cutoff = now.addingTimeInterval(-retention.seconds)
        let leftoverCutoff = now.addingTimeInterval(-min(leftoverRetention, retention).seconds)
        do {
            let deleted = try await environment.sessions.deleteUnused(cutoff, leftoverCutoff)
            if deleted > 0 { logger.info("Deleted expired sessions", metadata: ["count": "\(deleted)"]) }
        } catch {
            logger.error("Expired sessions could not be deleted", metadata: ["error": "\(error)"])
        }
    }

    /// Runs `action` after every `interval` until cancelled.
    private func repeatEvery(_ interval: Duration, _ action: @Sendable () async -> Void) async {
        while !Task.isCancelled {
            do {
                try await environment.clock.sleep(for: interval)
            } catch {
                return
            }
            await action()
        }
    }
}
