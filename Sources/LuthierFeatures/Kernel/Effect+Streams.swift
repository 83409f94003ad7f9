extension Effect {
    /// Every value of `values`, sent back as an action: one stream feeding another screen's
    /// input (the seeds' `sink` into a subject, or `assign`). `values` is subscribed when the
    /// reducer asks, so nothing published from then on is missed however late the effect's task
    /// starts.
    public static func forEach<Values: AsyncSequence & Sendable>(
        _ values: Values, _ action: @escaping @Sendable (Values.Element) -> Action
    ) -> Self where Values.Element: Sendable, Values.Failure == Never {
        .run { send in
            for await value in values { send(action(value)) }
        }
    }

    /// `action()` every `interval` on `clock` until cancelled: the seeds' `Timer.publish(every:)`
    /// with `autoconnect()`. The ticks fall at fixed instants counted from when the reducer asked
    /// (`interval`, `2 × interval`, …), so they do not drift however long each tick's work takes,
    /// and a test clock advanced by `interval` sees exactly one. Ticks missed while the process was
    /// stalled are not fired in a burst afterwards: one fires, and the next is on the schedule.
    /// `action` is called at each tick,
    /// to read what is current then (the wall-clock time, a counter).
    public static func timer(
        every interval: Duration, clock: any Clock<Duration>, _ action: @escaping @Sendable () -> Action
    ) -> Self {
        let tick = metronome(on: clock, every: interval)
        return .run { send in
            var next = 1
            while true {
                do {
                    next = try await tick(next) + 1
                } catch {
                    return  // cancelled: the store closed or replaced the timer
                }
                send(action())
            }
        }
    }

    /// The values of an input, at most one per `interval` and always the latest: the seeds'
    /// `throttle(for:scheduler:latest: true)`. A value that comes after a quiet spell is sent at
    /// once and opens a window of `interval`; whatever arrives during it waits, and when it
    /// closes the newest is sent and opens the next.
    ///
    /// "The newest" is the input's own buffer: `values` must keep only its newest element
    /// (`AsyncStream` with `.bufferingNewest(1)`), which makes the conflation a property of the
    /// subject rather than of this loop. The window's end is fixed before the value is sent, so a
    /// test that receives the value and then advances its clock by `interval` closes it exactly.
    public static func throttle<Value: Sendable>(
        _ values: AsyncStream<Value>, for interval: Duration, clock: any Clock<Duration>,
        _ action: @escaping @Sendable (Value) -> Action
    ) -> Self {
        .run { send in
            for await value in values {
                let windowEnds = alarm(on: clock, after: interval)
                send(action(value))
                do {
                    try await windowEnds()
                } catch {
                    return
                }
            }
        }
    }
}

extension Effect {
    /// `transform` of each of `values`, at most `maxInFlight` at a time, each action sent as soon
    /// as its work ends (the seeds' `flatMap(maxPublishers: .max(n))` followed by `merge`): a
    /// slow value holds up no other, and the actions come in the order the work finishes.
    /// `finished`, if given, is sent once every value's work has ended.
    public static func flatMap<Value: Sendable>(
        _ values: [Value], maxInFlight: Int, finished: Action? = nil,
        _ transform: @escaping @Sendable (Value) async -> Action
    ) -> Self {
        .run { send in
            await withTaskGroup(of: Action.self) { group in
                var next = values.startIndex
                while next < values.endIndex && next - values.startIndex < max(1, maxInFlight) {
                    let value = values[next]
                    group.addTask { await transform(value) }
                    next += 1
                }
                while let action = await group.next() {
                    send(action)
                    if next < values.endIndex {
                        let value = values[next]
                        group.addTask { await transform(value) }
                        next += 1
                    }
                }
            }
            if let finished { send(finished) }
        }
    }
}
