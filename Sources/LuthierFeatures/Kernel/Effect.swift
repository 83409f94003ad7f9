/// Work a reducer asks for, described as a value: the `Store` performs it and feeds its results
/// back as actions. Because it is a value, a reducer's test can see which work was asked for
/// without doing it, and the operators the seeds chain on publishers (`debounce`, `switchToLatest`
/// / `flatMapLatest`, `merge`) are functions from effects to effects.
public struct Effect<Action: Sendable>: Sendable {
    /// One piece of asynchronous work, and the id that a later effect can cancel or replace it by.
    struct Job: Sendable {
        var id: EffectID?
        var operation: @Sendable (Send<Action>) async -> Void
    }

    var jobs: [Job]
    /// Ids whose work in flight is cancelled before `jobs` start.
    var cancellations: [EffectID]

    /// No work: the action changed the state and that is all.
    public static var none: Self { Self(jobs: [], cancellations: []) }

    /// Asynchronous work that sends zero or more actions back (the seeds' `Future` and `flatMap`).
    public static func run(_ operation: @escaping @Sendable (Send<Action>) async -> Void) -> Self {
        Self(jobs: [Job(id: nil, operation: operation)], cancellations: [])
    }

    /// An action sent straight back (for one step to lead to the next, as `Just` does).
    public static func send(_ action: Action) -> Self {
        .run { send in send(action) }
    }

    /// Cancels the work in flight under `id`; its actions, if any were still to come, never arrive.
    public static func cancel(id: EffectID) -> Self {
        Self(jobs: [], cancellations: [id])
    }

    /// Several effects at once (the seeds' `merge`).
    public static func merge(_ effects: Self...) -> Self {
        Self(jobs: effects.flatMap(\.jobs), cancellations: effects.flatMap(\.cancellations))
    }

    /// The work, replacing any still in flight under `id` (`switchToLatest`, or `flatMapLatest`
    /// when the work fetches something): only the newest request's answer comes back.
    public func cancellable(id: EffectID) -> Self {
        Self(
            jobs: jobs.map { Job(id: id, operation: $0.operation) },
            cancellations: cancellations + [id])
    }

    /// The work under a name, so that others can find it in flight and await it
    /// (`Store.inFlight(id:)`), without replacing anything (unlike `cancellable`).
    public func named(_ id: EffectID) -> Self {
        Self(jobs: jobs.map { Job(id: id, operation: $0.operation) }, cancellations: cancellations)
    }

    /// The work after `duration` on `clock`, cancelled if another effect with the same `id` comes
    /// first (`debounce`): only the last of a quick succession runs.
    ///
    /// The deadline is taken now, when the reducer asks, not when the effect's task gets to run:
    /// the wait ends `duration` after the action on the clock however late the task starts, so a
    /// test that advances a test clock by `duration` sees the work run, exactly.
    public func debounce(id: EffectID, for duration: Duration, clock: any Clock<Duration>) -> Self {
        let jobs = self.jobs
        let wait = alarm(on: clock, after: duration)
        return Effect.run { send in
            do {
                try await wait()
            } catch {
                return  // replaced by a newer one, or the store closed
            }
            for job in jobs { await job.operation(send) }
        }
        .cancellable(id: id)
    }
}

/// The name under which work in flight can be cancelled or replaced.
public struct EffectID: Hashable, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ name: String) {
        description = name
    }
}

/// How an effect sends actions back into its store. An effect that was cancelled sends nothing:
/// a replaced rate request's answer can never overwrite the newer one's.
public struct Send<Action: Sendable>: Sendable {
    let deliver: @Sendable (Action) -> Void

    public func callAsFunction(_ action: Action) {
        guard !Task.isCancelled else { return }
        deliver(action)
    }
}
