import Foundation
import Logging
import LuthierDomain
import LuthierFeatures
import ServerMachinery
import Synchronization

/// The incidents kept for `/admin/incidents`: each failed request of a session, with the steps its
/// flight recorder held (`TapRecorder`), newest first.
///
/// Bounded three ways, so that a store that stays down, or a script that keeps failing, cannot
/// take the shop's memory: at most `Limits.count` incidents, their traces at most `Limits.bytes`
/// together (the oldest go first), and each gone after `Limits.retention`. A failure that comes
/// again with no new step in its session is counted on the incident it repeats, not kept again,
/// so an outage costs one trace's encoding per step, not per request.
final class IncidentLog: Sendable {
    struct Limits: Sendable {
        var count: Int
        var bytes: Int
        var retention: Duration
    }

    private struct State {
        /// Oldest first.
        var incidents: [Incident] = []
        var bytes = 0
        /// Failures whose trace alone was larger than `Limits.bytes`.
        var notKept = 0
        /// Failures told since the start, kept, repeated or not kept: what `/metrics` counts.
        var told = 0
    }

    let limits: Limits
    private let now: @Sendable () -> Date
    private let logger: Logger
    private let state = Mutex(State())

    init(limits: Limits, now: @escaping @Sendable () -> Date, logger: Logger) {
        self.limits = Limits(
            count: max(limits.count, 0), bytes: max(limits.bytes, 0), retention: max(limits.retention, .zero))
        self.now = now
        self.logger = logger
    }

    /// Keeps `failure` with the steps `recorder` holds (a repeat is counted on its incident).
    /// Returns the incident's id, or nil when it could not be kept (no room for its trace).
    @discardableResult
    func keep(_ failure: Incident.Failure, recordedBy recorder: TapRecorder, codes: [DiscountCode]) -> String? {
        let source = ObjectIdentifier(recorder)
        let recordedSteps = recorder.recordedSteps
        let date = now()
        let repeated = state.withLock { state -> String? in
            state.told += 1
            dropExpired(&state, at: date)
            guard
                let index = state.incidents.lastIndex(where: {
                    $0.source == source && $0.recordedSteps == recordedSteps && $0.failure == failure
                })
            else { return nil }
            state.incidents[index].repeats += 1
            return state.incidents[index].id
        }
        if let repeated { return repeated }
        // Encoded outside the lock: a full trace takes a while, and other failures may be kept meanwhile.
        // Read apart from `recordedSteps`: a step taken meanwhile is in `steps` but not counted there.
        let steps = recorder.traceSteps
        let trace = SessionTrace(steps: steps, dropped: max(recordedSteps - steps.count, 0), shopCodes: codes)
        let json: Data
        do {
            json = try trace.json()
        } catch {
            logger.error("An incident's trace could not be encoded: \(error)")
            return nil
        }
        let incident = Incident(
            id: RequestLogMiddleware<LuthierRequestContext>.newRequestID(), at: date, failure: failure, trace: json,
            steps: steps.count,
            dropped: trace.dropped, source: source, recordedSteps: recordedSteps)
        let kept = state.withLock { state -> Bool in
            guard limits.count > 0, json.count <= limits.bytes else {
                state.notKept += 1
                return false
            }
            while !state.incidents.isEmpty,
                state.incidents.count >= limits.count || state.bytes + json.count > limits.bytes
            {
                state.bytes -= state.incidents.removeFirst().trace.count
            }
            state.incidents.append(incident)
            state.bytes += json.count
            return true
        }
        guard kept else {
            logger.warning(
                "A failed request's recording was not kept: larger than the incidents' budget",
                metadata: ["bytes": "\(json.count)", "status": "\(failure.status)"])
            return nil
        }
        logger.warning(
            "Incident kept: \(failure.method) \(failure.route) answered \(failure.status)",
            metadata: ["incident": "\(incident.id)", "steps": "\(incident.steps)"])
        return incident.id
    }

    /// The incidents within their retention, newest first.
    var incidents: [Incident] {
        let date = now()
        return state.withLock { state in
            dropExpired(&state, at: date)
            return state.incidents.reversed()
        }
    }

    /// The incident `id`, while it is kept.
    func incident(_ id: String) -> Incident? {
        incidents.first { $0.id == id }
    }

    /// Lets the incidents past their retention go (the session service's sweep calls it, so that
    /// their memory is freed even when nobody reads the list).
    func dropExpired() {
        let date = now()
        state.withLock { dropExpired(&$0, at: date) }
    }

    /// What the incidents' traces weigh now, and the failures not kept for want of room.
    var bytes: Int { state.withLock { $0.bytes } }
    var notKept: Int { state.withLock { $0.notKept } }
    /// Failures told since the start (each repeat too).
    var told: Int { state.withLock { $0.told } }

    private func dropExpired(_ state: inout State, at date: Date) {
        let retention = Double(limits.retention.components.seconds)
        while let oldest = state.incidents.first, date.timeIntervalSince(oldest.at) >= retention {
            state.bytes -= oldest.trace.count
            state.incidents.removeFirst()
        }
    }
}
