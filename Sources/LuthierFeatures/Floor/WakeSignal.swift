import Foundation
import Synchronization

/// A wake-up call that is never lost: a signal given while nobody waits is kept for the next wait.
final class WakeSignal: Sendable {
    private struct State {
        var isPending = false
        var waiter: CheckedContinuation<Void, Never>?
        /// When the waiter's alarm wakes it of itself, while it waits (and that is known).
        var alarmAt: Date?
    }

    private let state = Mutex(State())

    /// Wakes the waiter, or the next one.
    func signal() {
        signal(unlessAlarmBy: nil)
    }

    /// Wakes the waiter for something due at `due`, unless its alarm wakes it by then anyway: an
    /// order due after the stage timer's next pass needs no pass of its own (that pass finds it).
    /// Given while nobody waits (a pass under way, which may have read the store before the
    /// order was written), it is kept for the next wait, as ``signal()`` is.
    func signal(dueAt due: Date) {
        signal(unlessAlarmBy: due)
    }

    private func signal(unlessAlarmBy due: Date?) {
        let waiter = state.withLock { state in
            guard let waiter = state.waiter else {
                state.isPending = true
                return nil as CheckedContinuation<Void, Never>?
            }
            if let due, let alarmAt = state.alarmAt, alarmAt <= due { return nil }
            state.waiter = nil
            state.alarmAt = nil
            return waiter
        }
        waiter?.resume()
    }

    /// Returns when signalled (or at once for a signal given since the last wait), when `alarm`
    /// returns (at `alarmAt`, when known), or when the task is cancelled.
    func wait(until alarm: @escaping @Sendable () async throws -> Void, alarmAt: Date? = nil) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await alarm()
                    self.signal()
                } catch {}
            }
            await self.wait(alarmAt: alarmAt)
            group.cancelAll()
        }
    }

    private func wait(alarmAt: Date?) async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    if state.isPending || Task.isCancelled {
                        state.isPending = false
                        return true
                    }
                    state.waiter = continuation
                    state.alarmAt = alarmAt
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            signal()
        }
    }
}
