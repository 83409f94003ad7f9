import Foundation
import Logging
import LuthierFeatures
import PostgresNIO
import SQLMachinery
import Synchronization

/// Which instance on a PostgreSQL database runs the workshop floor's stage timer: the one holding
/// a session-level advisory lock on a connection of its own (`run()`). PostgreSQL releases the lock
/// when that connection ends, so when the leader dies (even `kill -9`: the kernel closes its
/// socket) another instance takes it at its next try, within `retryInterval`.
///
/// A leader cut off without its socket closing (its machine gone, its link cut) closes nothing,
/// so the server is told to end the leader's connection, and free the lock, once it has heard
/// nothing from it for the lease (``PostgresTimeouts/leaderLease``, `idle_session_timeout`); the
/// leader asks `SELECT 1` every `checkInterval`, well within it. A new leader therefore takes the
/// floor within the lease and a retry.
///
/// Each instance that takes the lock starts a new term (``FloorTerm``, raised in the database),
/// and the floor's passes carry it: the store moves nothing for a term that has ended. A leader
/// checks its connection every `checkInterval`; when the check fails, or does not answer within
/// `callTimeout`, it stops leading, closes the connection and tries again. Until then, cut off
/// from the database, it may still believe it leads while another has taken over; whatever it
/// sends reaches the database only after the new term began, and is refused.
///
/// Every query it makes is bounded: a connection PostgreSQL ended while it was idle (a restart of
/// the server) can leave a query on it waiting for good, and cancelling the task does not end it.
/// Only closing the connection does. Unbounded, the leader neither noticed the restart (the floor
/// stopped for good) nor let the process stop on `SIGTERM`.
public final class PostgresFloorLeader<C: Clock<Duration>>: Sendable {
    let location: PostgresLocation
    let logger: Logger
    let clock: C
    /// Told of every try to take the lock, with whether it was taken (for tests and the log).
    private let attempted: @Sendable (Bool) -> Void
    /// Starts a new term in the database (``WorkshopStore/beginFloorTerm()``), once the lock is taken.
    private let beginTerm: @Sendable () async throws -> FloorTerm
    private let state = Mutex(State())

    private struct State {
        /// The term this instance leads in; nil while it does not lead.
        var term: FloorTerm?
        var waiting: [UUID: CheckedContinuation<FloorTerm, any Error>] = [:]
    }

    /// How long an instance that does not lead waits before trying to take the lock again: the
    /// bound on a failover, once the old leader's connection has ended.
    public static var retryInterval: Duration { .seconds(1) }
    /// How often the leader checks that its connection (and so its lock) is still there.
    public static var checkInterval: Duration { .seconds(1) }
    /// How long any one of its queries may take before the connection is given up.
    var callTimeout: Duration { timeouts.call }
    /// The server's bounds on the leader's connection (its lease among them).
    let timeouts: PostgresTimeouts

    public init(
        location: PostgresLocation, logger: Logger, clock: C, timeouts: PostgresTimeouts = PostgresTimeouts(),
        beginTerm: @escaping @Sendable () async throws -> FloorTerm,
        attempted: @escaping @Sendable (Bool) -> Void = { _ in }
    ) {
        self.location = location
        self.logger = logger
        self.clock = clock
        self.timeouts = timeouts
        self.beginTerm = beginTerm
        self.attempted = attempted
    }

    /// The floor's leadership as the floor waits for it.
    public var leadership: FloorLeadership { FloorLeadership { try await self.untilLeading() } }

    /// Whether this instance leads now.
    public var isLeading: Bool { state.withLock { $0.term != nil } }

    /// The term this instance leads in, once it leads; throws `CancellationError` when cancelled first.
    func untilLeading() async throws -> FloorTerm {
        let id = UUID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<FloorTerm, any Error>) in
                let term = state.withLock { state in
                    guard let term = state.term else {
                        state.waiting[id] = continuation
                        return FloorTerm?.none
                    }
                    return term
                }
                if let term { continuation.resume(returning: term) }
            }
        } onCancel: {
            state.withLock { $0.waiting.removeValue(forKey: id) }?.resume(throwing: CancellationError())
        }
    }

    /// Tries to lead until cancelled: takes the lock when it is free, holds it while its
    /// connection lasts, and tries again after losing it.
    public func run() async {
        while !Task.isCancelled {
            var connection: PostgresConnection?
            do {
                let opened = try await PostgresConnection.connect(
                    configuration: try location.connectionConfiguration(parameters: timeouts.leaderParameters),
                    id: 2, logger: logger)
                connection = opened
                try await takeLock(on: opened)
                // Raised through the pool (bounded there, as every call of the store is), under the
                // workshop's lock: a pass of the old term still under way finishes first, and every
                // later one is refused.
                lead(try await beginTerm())
                while true {
                    let check = alarm(on: clock, after: Self.checkInterval)
                    try await check()
                    try await bounded(on: opened) { try await $0.run("SELECT 1", self.logger) }
                }
            } catch {
                if isLeading, !Task.isCancelled {
                    logger.warning("This instance no longer runs the workshop floor; trying again")
                }
            }
            lead(nil)
            try? await connection?.close()
            let retry = alarm(on: clock, after: Self.retryInterval)
            guard (try? await retry()) != nil else { break }
        }
        lead(nil)
    }

    /// Returns once the lock is taken on `connection`, trying every `retryInterval`.
    private func takeLock(on connection: PostgresConnection) async throws {
        while true {
            // The retry's deadline is fixed before the try is told, so a test clock advanced
            // past it after hearing the try always wakes it.
            let retry = alarm(on: clock, after: Self.retryInterval)
            let taken = try await bounded(on: connection) { connection in
                try await connection.value(
                    Bool.self,
                    "SELECT pg_try_advisory_lock(hashtextextended(current_schema() || ':floor-leader', 0))",
                    self.logger) ?? false
            }
            attempted(taken)
            if taken { return }
            try await retry()
        }
    }

    /// `query` on `connection`, within `callTimeout` on the clock (``FirstAnswer``); past it,
    /// or on failure, the connection is closed.
    ///
    /// A closed connection is not asked at all: PostgresNIO never answers a query sent on one.
    private func bounded<T: Sendable>(
        on connection: PostgresConnection, _ query: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let (timeout, location) = (callTimeout, location)
        guard !connection.isClosed else {
            throw SQLDatabaseError.unreachable(database: location.description, after: .zero)
        }
        return try await FirstAnswer.of(
            { try await query(connection) }, within: timeout, on: clock,
            otherwise: { SQLDatabaseError.unreachable(database: location.description, after: timeout) },
            whenFailed: {
                // The future's form: not awaited, since the close of a stuck connection is not to
                // be waited for either.
                let closed: EventLoopFuture<Void> = connection.close()
                _ = closed
            })
    }

    private func lead(_ term: FloorTerm?) {
        let (changed, waiting) = state.withLock { state in
            let changed = state.term != term
            state.term = term
            guard term != nil else { return (changed, [CheckedContinuation<FloorTerm, any Error>]()) }
            defer { state.waiting.removeAll() }
            return (changed, Array(state.waiting.values))
        }
        guard let term else { return }
        if changed {
            logger.info(
                "This instance runs the workshop floor (it holds the leader's lock)",
                metadata: ["term": "\(term.number)"])
        }
        for continuation in waiting { continuation.resume(returning: term) }
    }
}
