import Testing

@testable import LuthierFeatures

/// A `Store` driven by a test the way the seeds' marble tests read: `send` an input and say how
/// the state changes; `receive` each action an effect sends back, in order, and say how the state
/// changes; `finish` fails on any action left unreceived. Nothing polls: `receive` waits for the
/// next action itself (bounded in real time by `firstValues`, so a missing one fails instead of
/// hanging).
struct TestStore<R: Reducer> where R.Action: Equatable {
    let store: Store<R>
    private let feedback: AsyncStream<(R.Action, R.State)>
    private(set) var state: R.State

    init(initialState: R.State, reducer: R) {
        let (stream, continuation) = AsyncStream<(R.Action, R.State)>.makeStream()
        store = Store(initialState: initialState, reducer: reducer, feedback: continuation)
        feedback = stream
        state = initialState
    }

    /// The store a screen's owner makes (a `KioskFeed`, a `WorkshopFloor`), given the feedback
    /// continuation to make it with.
    init(making make: (AsyncStream<(R.Action, R.State)>.Continuation) -> Store<R>) {
        let (stream, continuation) = AsyncStream<(R.Action, R.State)>.makeStream()
        store = make(continuation)
        feedback = stream
        state = store.state
    }

    /// Sends an input; `update` turns the state before it into the state expected after it.
    @discardableResult
    mutating func send(
        _ action: R.Action, _ update: (inout R.State) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws(R.Refusal) -> Store<R>.Sent {
        let sent = try store.send(action)
        var expected = state
        update(&expected)
        #expect(sent.state == expected, "after \(action)", sourceLocation: sourceLocation)
        state = sent.state
        return sent
    }

    /// Sends an input the reducer must refuse with `refusal`, leaving the state as it was.
    func send(
        _ action: R.Action, refusedWith refusal: R.Refusal, sourceLocation: SourceLocation = #_sourceLocation
    ) where R.Refusal: Equatable {
        do {
            _ = try store.send(action)
            Issue.record("\(action) was accepted; expected \(refusal)", sourceLocation: sourceLocation)
        } catch {
            #expect(error == refusal, sourceLocation: sourceLocation)
        }
        #expect(store.state == state, "a refused \(action) changed the state", sourceLocation: sourceLocation)
    }

    /// Waits for the next action an effect sends back: it must be `action`, and `update` turns the
    /// state before it into the state after it.
    mutating func receive(
        _ action: R.Action, _ update: (inout R.State) -> Void = { _ in },
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        guard let (received, after) = await next() else {
            Issue.record("expected to receive \(action), but nothing came", sourceLocation: sourceLocation)
            return
        }
        #expect(received == action, sourceLocation: sourceLocation)
        var expected = state
        update(&expected)
        #expect(after == expected, "after \(received)", sourceLocation: sourceLocation)
        state = after
    }

    /// Waits for the next action an effect sends back: it must be `action`; `check` looks at the
    /// parts of the state after it that matter to the test, for a state too large to spell out
    /// whole (the workshop floor's lists follow from its own exhaustively tested fold).
    mutating func receive(
        _ action: R.Action, checking check: (R.State) -> Void, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        guard let (received, after) = await next() else {
            Issue.record("expected to receive \(action), but nothing came", sourceLocation: sourceLocation)
            return
        }
        #expect(received == action, sourceLocation: sourceLocation)
        check(after)
        state = after
    }

    /// Closes the store (cancelling work still in flight) and fails on every action that came back
    /// without being received.
    func finish(sourceLocation: SourceLocation = #_sourceLocation) async {
        store.close()
        for await (action, _) in feedback {
            Issue.record("received \(action) that the test did not expect", sourceLocation: sourceLocation)
        }
    }

    private func next() async -> (R.Action, R.State)? {
        await firstValues(1, of: feedback).first
    }
}

extension TestStore where R.State: Traceable {
    /// Sends `action` and expects the state after it, redacted as a trace keeps it, to be
    /// `recorded` (a recorded step of a session).
    mutating func send(
        _ action: R.Action, leadingTo recorded: R.State, sourceLocation: SourceLocation = #_sourceLocation
    ) throws(R.Refusal) {
        let sent = try store.send(action)
        let after = sent.state.redacted
        if after != recorded {
            let difference = JSONDifference.first(recorded, after)
            Issue.record(
                "after \(action): \(difference.path) was \(difference.recorded) when recorded, \(difference.replayed) now",
                sourceLocation: sourceLocation)
        }
        state = sent.state
    }

    /// Sends `action`, which must be refused in the words `recorded` (`String(describing:)` of the
    /// refusal), leaving the state as it was.
    func send(_ action: R.Action, refusedAs recorded: String, sourceLocation: SourceLocation = #_sourceLocation) {
        do {
            _ = try store.send(action)
            Issue.record(
                "\(action) was accepted; it was refused when recorded: \(recorded)", sourceLocation: sourceLocation)
        } catch {
            #expect("\(error)" == recorded, sourceLocation: sourceLocation)
        }
        #expect(store.state == state, "a refused \(action) changed the state", sourceLocation: sourceLocation)
    }
}

/// The first `count` values of `sequence`, waiting for them as they come (no polling); fewer if
/// the sequence ends first or 5 s pass in real time (only a failing test waits that long).
func firstValues<S: AsyncSequence & Sendable>(_ count: Int, of sequence: S) async -> [S.Element]
where S.Element: Sendable, S.Failure == Never {
    await withTaskGroup(of: [S.Element]?.self) { group in
        group.addTask {
            var values: [S.Element] = []
            guard count > 0 else { return values }
            for await value in sequence {
                values.append(value)
                if values.count == count { break }
            }
            return values
        }
        group.addTask {
            try? await ContinuousClock().sleep(for: .seconds(5))
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first ?? []
    }
}
