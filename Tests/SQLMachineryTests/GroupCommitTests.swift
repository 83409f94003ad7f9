import Synchronization
import Testing

@testable import SQLMachinery

/// Group commit: a lone write goes at once; writes made while one is in flight go together in the
/// next batch, each answered with its own answer once that batch is written.
@Suite struct GroupCommitTests {
    /// A write that records each batch and waits, batch by batch, until the test lets it finish.
    final class Writer: Sendable {
        let batches = Mutex<[[Int]]>([])
        private let gates = Mutex<[CheckedContinuation<Void, Never>]>([])
        let started: AsyncStream<[Int]>
        private let startedContinuation: AsyncStream<[Int]>.Continuation
        let failing: Set<Int>

        init(failing: Set<Int> = []) {
            self.failing = failing
            (started, startedContinuation) = AsyncStream.makeStream()
        }

        func write(_ items: [Int]) async throws -> [String] {
            batches.withLock { $0.append(items) }
            await withCheckedContinuation { gate in
                gates.withLock { $0.append(gate) }
                startedContinuation.yield(items)
            }
            // As a database call does, a cancelled write gives up.
            try Task.checkCancellation()
            if items.contains(where: failing.contains) { throw Failed() }
            return items.map { "answer \($0)" }
        }

        /// Lets the batch in flight finish.
        func finish() {
            let gate = gates.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            gate?.resume()
        }
    }

    struct Failed: Error {}

    /// A commit queue whose queue length each new caller reports into `queued`.
    static func commits(
        _ writer: Writer, limit: Int = 64
    ) -> (GroupCommit<Int, String>, AsyncStream<Int>) {
        let (queued, continuation) = AsyncStream<Int>.makeStream()
        let commits = GroupCommit<Int, String>(limit: limit, queued: { continuation.yield($0) }) { items in
            try await writer.write(items)
        }
        return (commits, queued)
    }

    /// Waits until `count` callers are queued.
    static func untilQueued(_ count: Int, _ queued: AsyncStream<Int>) async {
        for await waiting in queued where waiting >= count { return }
    }

    @Test func aLoneCommitIsWrittenAtOnceAndAlone() async throws {
        let writer = Writer()
        let (commits, _) = Self.commits(writer)
        var started = writer.started.makeAsyncIterator()
        async let answer = commits.commit(1)
        #expect(await started.next() == [1])
        writer.finish()
        #expect(try await answer == "answer 1")
        #expect(writer.batches.withLock { $0 } == [[1]])
    }

    @Test func commitsMadeWhileOneIsWrittenGoTogetherInTheNextEachWithItsAnswer() async throws {
        let writer = Writer()
        let (commits, queued) = Self.commits(writer)
        var started = writer.started.makeAsyncIterator()
        try await withThrowingTaskGroup(of: (Int, String).self) { group in
            group.addTask { (1, try await commits.commit(1)) }
            #expect(await started.next() == [1])
            for item in 2...4 { group.addTask { (item, try await commits.commit(item)) } }
            await Self.untilQueued(3, queued)
            writer.finish()
            // The first queued writes the rest with its own, first.
            let next = try #require(await started.next())
            #expect(next.count == 3 && Set(next) == [2, 3, 4])
            writer.finish()
            var answers: [Int: String] = [:]
            for try await (item, answer) in group { answers[item] = answer }
            #expect(answers == [1: "answer 1", 2: "answer 2", 3: "answer 3", 4: "answer 4"])
        }
        #expect(writer.batches.withLock { $0.count } == 2)
    }

    @Test func aFailedWriteFailsItsOwnBatchOnlyAndTheNextBatchIsStillWritten() async throws {
        let writer = Writer(failing: [2])
        let (commits, queued) = Self.commits(writer)
        var started = writer.started.makeAsyncIterator()
        try await withThrowingTaskGroup(of: (Int, Result<String, any Error>).self) { group in
            group.addTask { (1, await outcome { try await commits.commit(1) }) }
            #expect(await started.next() == [1])
            for item in [2, 3] { group.addTask { (item, await outcome { try await commits.commit(item) }) } }
            await Self.untilQueued(2, queued)
            writer.finish()
            #expect(await started.next()?.count == 2)
            group.addTask { (4, await outcome { try await commits.commit(4) }) }
            await Self.untilQueued(1, queued)
            writer.finish()
            #expect(await started.next() == [4])
            writer.finish()
            var outcomes: [Int: Bool] = [:]
            for try await (item, result) in group { outcomes[item] = (try? result.get()) != nil }
            #expect(outcomes == [1: true, 2: false, 3: false, 4: true])
        }
    }

    @Test func aBatchHoldsAtMostTheLimitAndTheRestGoNext() async throws {
        let writer = Writer()
        let (commits, queued) = Self.commits(writer, limit: 2)
        var started = writer.started.makeAsyncIterator()
        try await withThrowingTaskGroup(of: String.self) { group in
            group.addTask { try await commits.commit(1) }
            #expect(await started.next() == [1])
            for item in 2...4 { group.addTask { try await commits.commit(item) } }
            await Self.untilQueued(3, queued)
            writer.finish()
            #expect(await started.next()?.count == 2)
            writer.finish()
            #expect(await started.next()?.count == 1)
            writer.finish()
            var answered = 0
            for try await _ in group { answered += 1 }
            #expect(answered == 4)
        }
    }

    @Test func aCancelledWritersBatchStillAnswersTheOthersInIt() async throws {
        let writer = Writer()
        let (commits, queued) = Self.commits(writer)
        var started = writer.started.makeAsyncIterator()
        let first = Task { try await commits.commit(1) }
        #expect(await started.next() == [1])
        let second = Task { try await commits.commit(2) }
        let third = Task { try await commits.commit(3) }
        await Self.untilQueued(2, queued)
        writer.finish()
        // The second or the third writes the next batch; cancelling it fails nobody's write.
        let next = try #require(await started.next())
        (next.first == 2 ? second : third).cancel()
        writer.finish()
        #expect(try await first.value == "answer 1")
        #expect(try await second.value == "answer 2")
        #expect(try await third.value == "answer 3")
    }
}

/// What `body` returned, or what it threw.
private func outcome<T>(_ body: () async throws -> T) async -> Result<T, any Error> {
    do {
        return .success(try await body())
    } catch {
        return .failure(error)
    }
}
