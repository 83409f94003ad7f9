import Synchronization

/// Whether the shop's database serves now, probed at most once per `interval` however often it is
/// asked: balancers and monitors (or a flood of `/healthz`) cost one probe per interval, never one
/// each. The probe is a real write (`WorkshopStore.writeProblem`, on either database),
/// so a full disk, a read-only file, another process's lock or a database refusing writes all show.
///
/// A probe still running after `bound` answers "not ready" to everyone waiting, at once; its
/// answer is kept when it comes. So readiness is told within `bound` whatever the database does.
public final class ReadinessProbe<C: Clock<Duration>>: Sendable {
    private struct State {
        /// The last answer and when it came.
        var last: (at: C.Instant, problem: String?)?
        var running = false
        /// Which probe runs (a timer of an earlier one must not judge a later one).
        var run = 0
        /// Whether the running probe has outlasted `bound` (later askers are answered so at once).
        var overdue = false
        var waiting: [CheckedContinuation<String?, Never>] = []
    }

    let interval: Duration
    let bound: Duration
    let clock: C
    private let probe: @Sendable () async -> String?
    private let state = Mutex(State())

    /// - Parameters:
    ///   - interval: how long an answer stands.
    ///   - bound: how long an asker waits for a probe under way.
    ///   - probe: why the database does not serve now, or nil when it does.
    public init(
        interval: Duration = .seconds(1), bound: Duration = .seconds(1), clock: C,
        probe: @escaping @Sendable () async -> String?
    ) {
        self.interval = interval
        self.bound = bound
        self.clock = clock
        self.probe = probe
    }

    /// Why this instance should not be sent requests now, or nil when it may.
    public func problem() async -> String? {
        await withCheckedContinuation { (continuation: CheckedContinuation<String?, Never>) in
            let (answer, start) = state.withLock { state -> (String??, Bool) in
                if let last = state.last, last.at.duration(to: clock.now) < interval {
                    return (.some(last.problem), false)
                }
                if state.overdue { return (.some(overdueProblem), false) }
                state.waiting.append(continuation)
                let start = !state.running
                if start {
                    state.running = true
                    state.run += 1
                }
                return (nil, start)
            }
            if let answer { return continuation.resume(returning: answer) }
            if start { begin(run: state.withLock { $0.run }) }
        }
    }

    private var overdueProblem: String { "the database did not answer within \(bound)" }

    /// Runs one probe, and one timer for its bound. The probe is the database's I/O itself, a task
    /// of this live service that nobody waits on past `bound`.
    private func begin(run: Int) {
        let timer = Task {
            guard (try? await clock.sleep(for: bound)) != nil else { return }
            let waiting = state.withLock { state -> [CheckedContinuation<String?, Never>] in
                guard state.running, state.run == run else { return [] }
                state.overdue = true
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume(returning: overdueProblem) }
        }
        Task {
            let problem = await probe()
            timer.cancel()
            let waiting = state.withLock { state in
                state.last = (clock.now, problem)
                state.running = false
                state.overdue = false
                defer { state.waiting = [] }
                return state.waiting
            }
            for continuation in waiting { continuation.resume(returning: problem) }
        }
    }
}
