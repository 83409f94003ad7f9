import Synchronization

/// Writes that arrive while one is being written go together in the next: one statement and one
/// commit for all of them (group commit), and each caller is answered once its own write is
/// committed, so "saved before the answer" holds for every one.
///
/// Nothing waits on a timer to gather a batch, and no task of its own runs the writes: the first
/// caller finds nothing in flight and writes its item at once (a lone write costs what it did
/// before). Callers that come while a batch is in flight queue up. When the batch is committed,
/// its writer answers the batch's callers and hands the writing to the first caller queued, who
/// writes every item queued by then (at most `limit`) and does the same in turn. Under load, the
/// batch grows with what arrived during the last commit; idle, it is one write.
package final class GroupCommit<Item: Sendable, Answer: Sendable>: Sendable {
    /// Writes `items` in one transaction and answers each, in their order; throwing fails them all.
    package typealias Write = @Sendable (_ items: [Item]) async throws -> [Answer]

    private enum Turn {
        case answered(Result<Answer, any Error>)
        /// The caller writes the next batch, its own item first.
        case write
    }

    private struct Waiting {
        let item: Item
        let turn: CheckedContinuation<Turn, Never>
    }

    private struct State {
        var writing = false
        var queue: [Waiting] = []
    }

    private let state = Mutex(State())
    private let write: Write
    /// Told how many callers wait, each time one more queues (for tests, which await it).
    private let queued: @Sendable (Int) -> Void
    /// The most items one batch writes (a statement's parameters are bounded, and so should be
    /// what one failure fails).
    package let limit: Int

    package init(limit: Int = 64, queued: @escaping @Sendable (Int) -> Void = { _ in }, write: @escaping Write) {
        precondition(limit > 0, "a batch holds at least one item")
        self.limit = limit
        self.queued = queued
        self.write = write
    }

    /// Writes `item`, with whatever else is waiting then, and returns its answer once committed.
    package func commit(_ item: Item) async throws -> Answer {
        let turn = await withCheckedContinuation { (turn: CheckedContinuation<Turn, Never>) in
            let waiting = state.withLock { state -> Int? in
                guard state.writing else {
                    state.writing = true
                    return nil
                }
                state.queue.append(Waiting(item: item, turn: turn))
                return state.queue.count
            }
            if let waiting { queued(waiting) } else { turn.resume(returning: .write) }
        }
        switch turn {
        case .answered(let answer):
            return try answer.get()
        case .write:
            return try await writeBatch(startingWith: item)
        }
    }

    /// Writes `item` and the items queued now (up to `limit` in all), answers their callers, and
    /// hands the writing on to the next caller queued, if any.
    private func writeBatch(startingWith item: Item) async throws -> Answer {
        let others = state.withLock { state -> [Waiting] in
            let taken = Array(state.queue.prefix(limit - 1))
            state.queue.removeFirst(taken.count)
            return taken
        }
        let outcome: Result<[Answer], any Error>
        do {
            // In a task of its own, awaited: the batch holds other callers' items, which this
            // caller's cancellation (its client gone) must not fail.
            let batch = [item] + others.map(\.item)
            let answers = try await Task { [write] in try await write(batch) }.value
            precondition(answers.count == others.count + 1, "a batch's write answers each of its items")
            outcome = .success(answers)
        } catch {
            outcome = .failure(error)
        }
        for (index, waiting) in others.enumerated() {
            waiting.turn.resume(returning: .answered(outcome.map { $0[index + 1] }))
        }
        let next = state.withLock { state -> Waiting? in
            guard !state.queue.isEmpty else {
                state.writing = false
                return nil
            }
            return state.queue.removeFirst()
        }
        next?.turn.resume(returning: .write)
        return try outcome.get()[0]
    }
}
