/// A stream that tells a recorder what it does, unchanged: the seeds' `print(_:)` and
/// `handleEvents`. Its reader's subscription (the first `next()`), each value, the end, a failure,
/// and a cancellation (the reading task cancelled) are recorded on one lane.
public struct AsyncTapSequence<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Base.Element: Sendable {
    public typealias Element = Base.Element
    public typealias Failure = Base.Failure

    let base: Base
    let lane: String
    let recorder: TapRecorder
    let describe: @Sendable (Base.Element) -> String

    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let lane: String
        let recorder: TapRecorder
        let describe: @Sendable (Base.Element) -> String
        var subscribed = false
        var ended = false

        public mutating func next(isolation actor: isolated (any Actor)?) async throws(Base.Failure) -> Base.Element? {
            guard !ended else { return nil }
            if !subscribed {
                subscribed = true
                recorder.record(lane, .subscription)
            }
            let element: Base.Element?
            do {
                element = try await base.next(isolation: actor)
            } catch {
                ended = true
                recorder.record(lane, .failure, "\(error)")
                throw error
            }
            guard let element else {
                ended = true
                recorder.record(lane, Task.isCancelled ? .cancellation : .completion)
                return nil
            }
            let describe = describe
            recorder.record(lane, .value, describe(element))
            return element
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), lane: lane, recorder: recorder, describe: describe)
    }
}

extension AsyncSequence where Self: Sendable, Element: Sendable {
    /// This stream, with what it does recorded on `lane` (see `AsyncTapSequence`); `describe`
    /// runs only while the recorder records.
    public func tap(
        _ lane: String, into recorder: TapRecorder,
        describe: @escaping @Sendable (Element) -> String = { String(describing: $0) }
    ) -> AsyncTapSequence<Self> {
        AsyncTapSequence(base: self, lane: lane, recorder: recorder, describe: describe)
    }
}
