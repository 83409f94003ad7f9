import Synchronization

/// The shop's one writer of analytics events: carts hand their applied actions over without
/// waiting, and one loop (`run`) records them in batches.
///
/// Each session used to follow its cart's applied actions with a task of its own, suspended for
/// the session's whole life whether anything happened or not (about 3 KiB per session in task
/// frames). One queue for the shop costs nothing per session, and writes many sessions' events in
/// one transaction.
///
/// A slow or failing database costs analytics, never a cart: `enqueue` never waits, the queue is
/// bounded, and when it is full the oldest events are dropped (and counted) rather than the cart
/// being held up.
public final class AnalyticsQueue: Sendable {
    private struct State {
        var pending: [AnalyticsEvent] = []
        var dropped = 0
        var isFinished = false
    }

    /// Events kept waiting at most.
    public let capacity: Int
    /// Events written in one call at most.
    public let batchSize: Int
    private let state = Mutex(State())
    private let wakes: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    public init(capacity: Int = 10_000, batchSize: Int = 500) {
        self.capacity = max(capacity, 1)
        self.batchSize = max(batchSize, 1)
        (wakes, wake) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds `event` to be recorded; never waits. After `finish()` it is dropped.
    public func enqueue(_ event: AnalyticsEvent) {
        let added = state.withLock { state in
            guard !state.isFinished else {
                state.dropped += 1
                return false
            }
            if state.pending.count >= capacity {
                state.pending.removeFirst()
                state.dropped += 1
            }
            state.pending.append(event)
            return true
        }
        if added { wake.yield() }
    }

    /// Events waiting to be recorded.
    public var pendingCount: Int { state.withLock { $0.pending.count } }

    /// Events dropped so far: the queue was full, or finished.
    public var droppedCount: Int { state.withLock { $0.dropped } }

    /// Records what is enqueued, in order and in batches of at most `batchSize`, until `finish()`
    /// (then what is left is recorded before it returns) or until the task is cancelled. A batch
    /// that fails is reported to `onFailure` with its size, and not retried.
    public func run(
        recording record: @Sendable ([AnalyticsEvent]) async throws -> Void,
        onFailure: @Sendable (_ error: any Error, _ events: Int) -> Void
    ) async {
        for await _ in wakes {
            await recordPending(record, onFailure)
        }
        if !Task.isCancelled { await recordPending(record, onFailure) }
    }

    /// Ends `run` once what was enqueued before is recorded.
    public func finish() {
        state.withLock { $0.isFinished = true }
        wake.finish()
    }

    private func recordPending(
        _ record: @Sendable ([AnalyticsEvent]) async throws -> Void,
        _ onFailure: @Sendable (any Error, Int) -> Void
    ) async {
        while let batch = nextBatch() {
            do {
                try await record(batch)
            } catch {
                onFailure(error, batch.count)
            }
        }
    }

    private func nextBatch() -> [AnalyticsEvent]? {
        state.withLock { state in
            guard !state.pending.isEmpty else { return nil }
            let count = min(batchSize, state.pending.count)
            let batch = Array(state.pending.prefix(count))
            state.pending.removeFirst(count)
            return batch
        }
    }
}
