import Foundation
import Synchronization
import Testing

@testable import LuthierFeatures

@Suite struct AnalyticsQueueTests {
    static func event(_ number: Int) -> AnalyticsEvent {
        AnalyticsEvent(
            action: "add", configuration: "c\(number)", at: Date(timeIntervalSince1970: 0), sessionKey: "s\(number % 3)"
        )
    }

    /// The batches a recorder was given, in order.
    final class Batches: Sendable {
        private let batches = Mutex<[[AnalyticsEvent]]>([])
        var all: [[AnalyticsEvent]] { batches.withLock { $0 } }
        func record(_ events: [AnalyticsEvent]) { batches.withLock { $0.append(events) } }
    }

    @Test func everyEventIsRecordedOnceInOrderInBatchesOfAtMostTheBatchSize() async {
        let queue = AnalyticsQueue(capacity: 100, batchSize: 4)
        let batches = Batches()
        for number in 0..<10 { queue.enqueue(Self.event(number)) }
        queue.finish()
        await queue.run(recording: { batches.record($0) }, onFailure: { _, _ in Issue.record("no failure") })
        #expect(batches.all.flatMap { $0 } == (0..<10).map(Self.event))
        #expect(batches.all.map(\.count) == [4, 4, 2])
        #expect(queue.pendingCount == 0)
    }

    @Test func enqueueingNeverWaitsAndABacklogKeepsTheNewestUpToTheCapacity() async {
        // Nobody runs the queue (a stuck database): enqueueing still returns at once.
        let queue = AnalyticsQueue(capacity: 1_000, batchSize: 500)
        for number in 0..<2_500 { queue.enqueue(Self.event(number)) }
        #expect(queue.pendingCount == 1_000)
        #expect(queue.droppedCount == 1_500)
        let batches = Batches()
        queue.finish()
        await queue.run(recording: { batches.record($0) }, onFailure: { _, _ in })
        #expect(batches.all.flatMap { $0 } == (1_500..<2_500).map(Self.event))
    }

    @Test func aFailedBatchIsReportedWithItsSizeAndTheNextOnesStillGo() async {
        let queue = AnalyticsQueue(capacity: 100, batchSize: 3)
        let calls = Mutex(0)
        let failed = Mutex<[Int]>([])
        let batches = Batches()
        for number in 0..<7 { queue.enqueue(Self.event(number)) }
        queue.finish()
        await queue.run(
            recording: { events in
                let call = calls.withLock { calls in
                    calls += 1
                    return calls
                }
                if call == 1 { throw CancellationError() }
                batches.record(events)
            },
            onFailure: { _, events in failed.withLock { $0.append(events) } })
        #expect(failed.withLock { $0 } == [3])
        #expect(batches.all.flatMap { $0 } == (3..<7).map(Self.event))
    }

    @Test func eventsEnqueuedWhileRunningAreRecordedAndAfterTheFinishDropped() async throws {
        let queue = AnalyticsQueue()
        let (recorded, recordedInput) = AsyncStream<[AnalyticsEvent]>.makeStream()
        let running = Task {
            await queue.run(recording: { recordedInput.yield($0) }, onFailure: { _, _ in })
            recordedInput.finish()
        }
        queue.enqueue(Self.event(1))
        var batches = recorded.makeAsyncIterator()
        #expect(await batches.next() == [Self.event(1)])
        queue.enqueue(Self.event(2))
        #expect(await batches.next() == [Self.event(2)])
        queue.finish()
        await running.value
        queue.enqueue(Self.event(3))
        #expect(queue.pendingCount == 0)
        #expect(queue.droppedCount == 1)
        #expect(await batches.next() == nil)
    }
}
