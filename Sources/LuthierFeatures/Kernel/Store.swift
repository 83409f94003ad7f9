import Synchronization

/// Runs a reducer: holds the state, applies each action at once (under one lock, so actions are
/// applied one at a time, in the order they arrive), publishes every new state to its readers, and
/// performs the effects the reducer returns, feeding their actions back in.
///
/// The one place where the kernel starts tasks: each effect runs in a task the store owns, tracked
/// by its id so that it can be replaced or cancelled, and cancelled when the store closes. View
/// models and reducers never start one.
public final class Store<R: Reducer>: Sendable {
    public typealias State = R.State
    public typealias Action = R.Action

    private struct Core {
        /// The state, kept once: its readers are told of each new one, and a new reader starts from it.
        var state: State
        /// How many times the state has changed: a reader that kept something drawn from the
        /// state at one revision knows it still shows the state while the revision is the same,
        /// without comparing (or even copying) the state.
        var revision: UInt64 = 0
        var readers = BroadcastReaders<State>()
        var running: [Int: (id: EffectID?, task: Task<[Action], Never>)] = [:]
        var nextToken = 0
        var isClosed = false
        /// Those waiting in `untilClosed()`.
        var closeWaiters: [CheckedContinuation<Void, Never>] = []
        /// Those awaiting a count of readers (`untilSubscribers`).
        var readerWaiters = ReaderCountWaiters()
        /// The state the trace's last step led to, as it keeps it (`StoreTrace.Kept`): here, in
        /// the store's own memory, so that a store that never acts pays no allocation for it.
        var lastKept: StoreTrace<State, Action>.Kept?
    }

    private let reducer: R
    private let core: Mutex<Core>
    /// Readers whose stream ended while another held `core` (see `readerEnded`), and whether
    /// anybody has ever awaited a count of readers (a test, a shutdown): such an end is then told
    /// by a task of its own, since it cannot take the lock where it happens.
    private let endedReaders: Mutex<(ids: [Int], awaited: Bool)>
    /// Every action that came back from an effect, with the state it led to: what a test receives.
    private let feedback: AsyncStream<(Action, State)>.Continuation?
    /// Where the store tells what it does, for the inspector and `LOG_LEVEL=trace`: each input
    /// (`<name>.input`), each action an effect sends back (`<name>.effect`), each new state
    /// (`<name>.state`) and each effect's start and end (`<name>.effects`).
    private let tap: Tap?
    /// Where the store keeps each action with the states around it, for a replayable trace.
    private let trace: StoreTrace<State, Action>?

    /// - Parameter feedback: told of every action an effect sends back and the state after it, in
    ///   order (tests read it to `receive` actions; the live shop passes nothing).
    ///   - tap: where to record what the store does (nothing when nil, or while the recorder is off).
    ///   - trace: where to keep each action and the states around it, for `/inspect/trace` (likewise).
    public init(
        initialState: State, reducer: R, feedback: AsyncStream<(Action, State)>.Continuation? = nil, tap: Tap? = nil,
        trace: StoreTrace<State, Action>? = nil
    ) {
        self.reducer = reducer
        core = Mutex(Core(state: initialState))
        endedReaders = Mutex(([], false))
        self.feedback = feedback
        self.tap = tap
        self.trace = trace
    }

    /// The state now.
    public var state: State { core.withLock { $0.state } }

    /// The number of changes of the state so far (`Core.revision`): equal revisions of one store
    /// are equal states.
    public var revision: UInt64 { core.withLock { $0.revision } }

    /// Every state from the current one on, conflated for a slow reader (its latest value wins).
    public func states() -> AsyncStream<State> {
        let (stream, continuation) = AsyncStream<State>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let added = core.withLock { core in
            defer { core.readerWaiters.counted(core.readers.count) }
            return core.readers.addStream(continuation, current: core.state)
        }
        guard let id = added else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            self?.readerEnded(id)
        }
        return stream
    }

    /// Forgets a reader whose stream ended, without ever waiting for the store's lock.
    ///
    /// A stream ends when its reading task is cancelled, and the runtime runs this while it holds
    /// that task's status lock. A send may at that moment hold the store's lock while yielding to
    /// this very stream, which needs the same task's status lock: waiting here would deadlock them
    /// both (it did: an order page closing as an order was placed stopped the workshop floor).
    /// So the reader is removed at once if the lock is free, and otherwise by the next holder of
    /// the lock (`dropEndedReaders`); meanwhile a yield to it is a no-op.
    private func readerEnded(_ id: Int) {
        let removed: Void? = core.withLockIfAvailable { core in
            core.readers.remove(id)
            core.readerWaiters.counted(core.readers.count)
        }
        guard removed == nil else { return }
        let awaited = endedReaders.withLock { ended in
            ended.ids.append(id)
            return ended.awaited
        }
        // Someone awaits a count this end changes: the next holder of the lock would tell them,
        // but nothing says when one comes. Only a test or a shutdown waits, so a task is cheap here.
        if awaited {
            Task { [weak self] in self?.core.withLock { core in self?.dropEndedReaders(&core) } }
        }
    }

    /// Removes the readers whose end could not take the lock. Called holding it; the two locks are
    /// only ever taken in this order (the store's, then this list's).
    private func dropEndedReaders(_ core: inout Core) {
        let ended = endedReaders.withLock { ended -> [Int] in
            defer { ended.ids = [] }
            return ended.ids
        }
        guard !ended.isEmpty else { return }
        for id in ended { core.readers.remove(id) }
        core.readerWaiters.counted(core.readers.count)
    }

    /// Calls `receive` with the state now and with every later distinct one, serially and in order,
    /// outside the store's lock; conflated for a slow callback. No task waits between states.
    public func sink(_ receive: @escaping @Sendable (State) -> Void) -> BroadcastSubscription {
        let sink = BroadcastSink(receive)
        let added = core.withLock { core in
            defer { core.readerWaiters.counted(core.readers.count) }
            return core.readers.addSink(sink, current: core.state)
        }
        guard let id = added else {
            return BroadcastSubscription {}
        }
        sink.drain()
        return BroadcastSubscription { [weak self] in
            sink.cancel()
            self?.core.withLock { core in
                core.readers.remove(id)
                core.readerWaiters.counted(core.readers.count)
            }
        }
    }

    /// Applies `action` and starts the work it asks for; returns the state it led to and that work,
    /// which the caller may await (`finish()`) or leave running.
    /// A refused action changes nothing and throws the reducer's refusal.
    @discardableResult
    public func send(_ action: Action) throws(R.Refusal) -> Sent {
        try apply(action, fedBack: false)
    }

    private func apply(_ action: Action, fedBack: Bool) throws(R.Refusal) -> Sent {
        // The new state is offered to the callbacks in the order of the actions (under the lock),
        // and they are called once the lock is released: a callback may read this store or send to it.
        let (sent, delivery) = try lockedApply(action, fedBack: fedBack)
        delivery.deliver()
        return sent
    }

    private func lockedApply(_ action: Action, fedBack: Bool) throws(R.Refusal) -> (Sent, BroadcastDelivery<State>) {
        try core.withLock { (core) throws(R.Refusal) -> (Sent, BroadcastDelivery<State>) in
            dropEndedReaders(&core)
            guard !core.isClosed else { return (Sent(state: core.state, tasks: []), BroadcastDelivery(sinks: [])) }
            var next = core.state
            let effect: Effect<Action>
            do throws(R.Refusal) {
                effect = try reducer.reduce(into: &next, action: action)
            } catch {
                trace?.record(
                    fedBack ? .effect : .input, action, before: core.state, revision: core.revision, after: nil,
                    revisionAfter: core.revision, last: &core.lastKept, refusal: "\(error)")
                throw error
            }
            tap?.record(fedBack ? "effect" : "input", .value, "\(action)")
            let changed = next != core.state
            trace?.record(
                fedBack ? .effect : .input, action, before: core.state, revision: core.revision, after: next,
                revisionAfter: changed ? core.revision &+ 1 : core.revision, last: &core.lastKept)
            if let tap, tap.recorder.isRecording, changed { tap.record("state", .value, "\(next)") }
            // Equal states are left out (`removeDuplicates`).
            let delivery = changed ? core.readers.offer(next) : BroadcastDelivery(sinks: [])
            core.state = next
            if changed { core.revision &+= 1 }
            if fedBack { feedback?.yield((action, core.state)) }
            for id in effect.cancellations {
                for (token, running) in core.running where running.id == id {
                    running.task.cancel()
                    core.running[token] = nil
                    tap?.record("effects", .cancellation, id.description)
                }
            }
            var started: [Task<[Action], Never>] = []
            for job in effect.jobs {
                let token = core.nextToken
                core.nextToken += 1
                // The task removes itself when done; it cannot get there before this lock is released.
                // It returns the actions it sent back, for whoever awaits it (`Sent.finish`).
                tap?.record("effects", .subscription, job.id?.description ?? "run")
                let task = Task { [self] in
                    let sentBack = Mutex<[Action]>([])
                    await job.operation(
                        Send { [self] action in
                            sentBack.withLock { $0.append(action) }
                            // A result the reducer refuses changes nothing; there is nobody to tell.
                            _ = try? self.apply(action, fedBack: true)
                        })
                    _ = self.core.withLock { $0.running.removeValue(forKey: token) }
                    if !Task.isCancelled { self.tap?.record("effects", .completion, job.id?.description ?? "run") }
                    return sentBack.withLock { $0 }
                }
                core.running[token] = (job.id, task)
                started.append(task)
            }
            return (Sent(state: core.state, tasks: started), delivery)
        }
    }

    /// The work running now under `id`, to await as if this caller had started it (a request that
    /// joins one in flight awaits its answer); nil when none runs.
    public func inFlight(id: EffectID) -> Sent? {
        core.withLock { core in
            let tasks = core.running.values.filter { $0.id == id }.map(\.task)
            return tasks.isEmpty ? nil : Sent(state: core.state, tasks: tasks)
        }
    }

    /// Sends `action` and waits for the answers its work sends back; when it started none because
    /// work under `id` was already in flight (a second tap, another tab), the answers of that work.
    /// Empty when that work ended before it could be awaited: its outcome is then in the state.
    public func answers(to action: Action, joining id: EffectID) async throws(R.Refusal) -> [Action] {
        await answers(of: try send(action), joining: id)
    }

    /// As `answers(to:joining:)`, for an action already sent.
    public func answers(of sent: Sent, joining id: EffectID) async -> [Action] {
        let answers = await sent.finish()
        guard answers.isEmpty, let joined = inFlight(id: id) else { return answers }
        return await joined.finish()
    }

    /// How many readers follow the states (used to prove streams are released).
    public var subscriberCount: Int {
        core.withLock { core in
            dropEndedReaders(&core)
            return core.readers.count
        }
    }

    /// Returns true once the number of readers meets `condition` (at once if it does), false if
    /// the task is cancelled first: what proves streams are released, awaited rather than polled.
    /// `condition` runs under the store's lock: it must not read or send to the store.
    public func untilSubscribers(_ condition: @escaping @Sendable (Int) -> Bool) async -> Bool {
        let ticket = ReaderCountWaiters.Ticket()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                // Nil once registered; else the answer now: met, or cancelled before it could wait.
                let answer = core.withLock { core -> Bool? in
                    dropEndedReaders(&core)
                    if condition(core.readers.count) { return true }
                    guard core.readerWaiters.add(ticket, condition, continuation) else { return false }
                    endedReaders.withLock { $0.awaited = true }
                    return nil
                }
                if let answer { continuation.resume(returning: answer) }
            }
        } onCancel: {
            core.withLock { $0.readerWaiters.remove(ticket) }?.resume(returning: false)
        }
    }

    /// Effects in flight now.
    public var runningEffects: Int { core.withLock { $0.running.count } }

    /// Cancels every effect, ends the published states and the feedback, and refuses further
    /// actions: the screen is gone.
    public func close() {
        let (tasks, waiters, readers) = core.withLock { core in
            core.isClosed = true
            defer {
                core.running = [:]
                core.closeWaiters = []
            }
            defer { core.readerWaiters.counted(core.readers.count) }
            return (core.running.values.map(\.task), core.closeWaiters, core.readers.finish())
        }
        for task in tasks { task.cancel() }
        for waiter in waiters { waiter.resume() }
        readers.end()
        feedback?.finish()
    }

    /// Returns once the store is closed. The wait is not a reader of the states, so it neither
    /// counts in `subscriberCount` nor wakes on every change.
    public func untilClosed() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let closed = core.withLock { core in
                if !core.isClosed { core.closeWaiters.append(waiter) }
                return core.isClosed
            }
            if closed { waiter.resume() }
        }
    }

    /// Sends `start`, then keeps the store until the calling task is cancelled, and closes it: a
    /// shop-wide screen (the workshop floor, the kiosk feed) run as a long-lived service.
    public func run(starting start: Action) async where R.Refusal == Never {
        send(start)
        await withTaskCancellationHandler {
            await untilClosed()
        } onCancel: {
            close()
        }
    }

    /// What one `send` did: the state right after it, and the work it started.
    public struct Sent: Sendable {
        public let state: State
        let tasks: [Task<[Action], Never>]

        /// Waits until the work this action started has finished (its actions applied), and returns
        /// the actions it sent back, in order.
        @discardableResult
        public func finish() async -> [Action] {
            var actions: [Action] = []
            for task in tasks { actions += await task.value }
            return actions
        }
    }
}
