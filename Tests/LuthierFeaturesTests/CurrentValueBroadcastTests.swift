import Synchronization
import Testing

@testable import LuthierFeatures

/// What a sink was given, and how deep its calls ever nested.
private final class SinkLog: Sendable {
    private let state = Mutex<(values: [Int], depth: Int, deepest: Int)>(([], 0, 0))
    var values: [Int] { state.withLock { $0.values } }
    var deepest: Int { state.withLock { $0.deepest } }
    func enter(_ value: Int) {
        state.withLock {
            $0.values.append(value)
            $0.depth += 1
            $0.deepest = max($0.deepest, $0.depth)
        }
    }
    func leave() { state.withLock { $0.depth -= 1 } }
}

@Suite struct CurrentValueBroadcastTests {
    @Test func aNewReaderGetsTheCurrentValueFirst() async {
        let broadcast = CurrentValueBroadcast(1)
        broadcast.send(2)
        var values = broadcast.values().makeAsyncIterator()
        #expect(await values.next() == 2)
        broadcast.send(3)
        #expect(await values.next() == 3)
    }

    @Test func aReaderThatFallsBehindHoldsOnlyTheNewestValue() async {
        let broadcast = CurrentValueBroadcast(0)
        var values = broadcast.values().makeAsyncIterator()
        for value in 1...10_000 { broadcast.send(value) }
        #expect(await values.next() == 10_000)
        broadcast.finish()
        #expect(await values.next() == nil)
    }

    @Test func updateIsAtomicUnderConcurrency() async {
        let broadcast = CurrentValueBroadcast(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { broadcast.update { $0 += 1 } }
            }
        }
        #expect(broadcast.value == 1_000)
    }

    @Test func readersThatStopAreUnsubscribed() async {
        let broadcast = CurrentValueBroadcast("a")
        let task = Task {
            for await _ in broadcast.values() {}
        }
        while broadcast.subscriberCount == 0 { await Task.yield() }
        task.cancel()
        await task.value
        #expect(broadcast.subscriberCount == 0)
    }

    @Test func aSinkGetsTheCurrentValueAtOnceThenEveryDistinctChangeInOrder() {
        let broadcast = CurrentValueBroadcast(1)
        let log = SinkLog()
        let subscription = broadcast.sink {
            log.enter($0)
            log.leave()
        }
        #expect(log.values == [1])
        for value in [2, 2, 3] { broadcast.send(value) }
        broadcast.update { $0 += 1 }
        #expect(log.values == [1, 2, 3, 4])
        #expect(broadcast.sinkCount == 1)
        subscription.cancel()
        broadcast.send(5)
        #expect(log.values == [1, 2, 3, 4])
        #expect(broadcast.sinkCount == 0)
    }

    @Test func aSinkIsNeverCalledInsideItselfAndABusySinkIsOwedOnlyTheNewest() {
        let broadcast = CurrentValueBroadcast(0)
        let log = SinkLog()
        let subscription = broadcast.sink { value in
            log.enter(value)
            // Sends made while the sink is busy (here, by the sink itself) wait for it to return.
            if value == 1 {
                for next in 2...100 { broadcast.send(next) }
            }
            log.leave()
        }
        broadcast.send(1)
        #expect(log.values == [0, 1, 100])
        #expect(log.deepest == 1)
        subscription.cancel()
    }

    @Test func finishingEndsEverySinkAndALaterSinkGetsNothing() {
        let broadcast = CurrentValueBroadcast(0)
        let log = SinkLog()
        _ = broadcast.sink {
            log.enter($0)
            log.leave()
        }
        broadcast.finish()
        broadcast.send(1)
        #expect(log.values == [0])
        #expect(broadcast.sinkCount == 0)
        _ = broadcast.sink {
            log.enter($0)
            log.leave()
        }
        #expect(log.values == [0])
    }

    @Test func aStoresSinkIsCalledOutsideItsLockSoItMayReadAndSendToTheStore() {
        let store = Store(initialState: 0, reducer: TapRecorderTests.Counter(clock: ManualClock()))
        let seen = Mutex<[(Int, Int)]>([])
        let subscription = store.sink { state in
            // Reading the state inside the callback would deadlock under the store's lock.
            seen.withLock { $0.append((state, store.state)) }
            if state == 1 { store.send(.add(10)) }
        }
        store.send(.add(1))
        #expect(seen.withLock { $0.map(\.0) } == [0, 1, 11])
        #expect(seen.withLock { $0.allSatisfy { $0.0 <= $0.1 } })
        #expect(store.state == 11)
        subscription.cancel()
    }

    @Test func manyConcurrentSendersReachASinkSeriallyEndingAtTheLastValue() async {
        let broadcast = CurrentValueBroadcast(0)
        let log = SinkLog()
        let subscription = broadcast.sink {
            log.enter($0)
            log.leave()
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { broadcast.update { $0 += 1 } }
            }
        }
        #expect(log.deepest == 1)
        #expect(log.values.last == 1_000)
        #expect(log.values == log.values.sorted())
        subscription.cancel()
    }
}
