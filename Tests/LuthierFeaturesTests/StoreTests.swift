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

/// A store's readers (`states()` and `sink`): the store keeps its state once, and its readers are
/// told of each distinct new one, conflated, never queued.
@Suite struct StoreTests {
    typealias Counter = TapRecorderTests.Counter

    static func store(_ initial: Int = 0) -> Store<Counter> {
        Store(initialState: initial, reducer: Counter(clock: ManualClock()))
    }

    @Test func aNewReaderGetsTheCurrentStateFirst() async {
        let store = Self.store(1)
        store.send(.add(1))
        var states = store.states().makeAsyncIterator()
        #expect(await states.next() == 2)
        store.send(.add(1))
        #expect(await states.next() == 3)
    }

    @Test func aReaderThatFallsBehindHoldsOnlyTheNewestState() async {
        let store = Self.store()
        var states = store.states().makeAsyncIterator()
        for _ in 1...10_000 { store.send(.add(1)) }
        #expect(await states.next() == 10_000)
        store.close()
        #expect(await states.next() == nil)
    }

    @Test func sendsAreAtomicUnderConcurrency() async {
        let store = Self.store()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { store.send(.add(1)) }
            }
        }
        #expect(store.state == 1_000)
    }

    @Test func theRevisionCountsChangesOfTheStateAndNotActionsThatLeaveItEqual() {
        let store = Self.store()
        #expect(store.revision == 0)
        store.send(.add(2))
        store.send(.add(3))
        #expect(store.revision == 2)
        store.send(.add(0))
        #expect(store.state == 5)
        #expect(store.revision == 2)
    }

    @Test func readersThatStopAreUnsubscribed() async {
        let store = Self.store()
        let task = Task {
            for await _ in store.states() {}
        }
        _ = await store.untilSubscribers { $0 == 1 }
        task.cancel()
        await task.value
        #expect(store.subscriberCount == 0)
    }

    /// The deadlock an order page's stream met on closing (2026-11-24, from gdb on a hung run): a
    /// send held the store's lock while yielding to a reader's stream, which needs the reader
    /// task's status lock; the reader, cancelled at that moment on another thread, held its status
    /// lock and ran its stream's termination, which waited for the store's lock. Each round races
    /// a reader's cancellation against a burst of sends; afterwards the reader is gone.
    @Test func aReaderCancelledWhileTheStoreYieldsToItNeverDeadlocks() async {
        for _ in 0..<2_000 {
            let store = Self.store()
            let reader = Task { for await _ in store.states() {} }
            _ = await store.untilSubscribers { $0 == 1 }
            let sender = Task.detached { for _ in 0..<20 { store.send(.add(1)) } }
            reader.cancel()
            await sender.value
            await reader.value
            #expect(store.subscriberCount == 0)
        }
    }

    @Test func aWaitForACountOfReadersIsResumedByTheChangeThatMeetsIt() async {
        let store = Self.store()
        async let oneReader = store.untilSubscribers { $0 == 1 }
        let reader = Task { for await _ in store.states() {} }
        #expect(await oneReader)
        let subscription = store.sink { _ in }
        #expect(store.subscriberCount == 2)
        async let noReader = store.untilSubscribers { $0 == 0 }
        reader.cancel()
        await reader.value
        subscription.cancel()
        #expect(await noReader)
    }

    @Test func closingTheStoreMeetsAWaitForNoReaders() async {
        let store = Self.store()
        let subscription = store.sink { _ in }
        defer { subscription.cancel() }
        async let none = store.untilSubscribers { $0 == 0 }
        store.close()
        #expect(await none)
    }

    @Test func aCancelledWaitForReadersReturnsFalse() async {
        let store = Self.store()
        let wait = Task { await store.untilSubscribers { $0 == 5 } }
        wait.cancel()
        #expect(await wait.value == false)
    }

    @Test func aSinkGetsTheCurrentStateAtOnceThenEveryDistinctChangeInOrder() {
        let store = Self.store(1)
        let log = SinkLog()
        let subscription = store.sink {
            log.enter($0)
            log.leave()
        }
        #expect(log.values == [1])
        for amount in [1, 0, 1] { store.send(.add(amount)) }
        #expect(log.values == [1, 2, 3])
        #expect(store.subscriberCount == 1)
        subscription.cancel()
        store.send(.add(1))
        #expect(log.values == [1, 2, 3])
        #expect(store.subscriberCount == 0)
    }

    @Test func aSinkIsNeverCalledInsideItselfAndABusySinkIsOwedOnlyTheNewest() {
        let store = Self.store()
        let log = SinkLog()
        let subscription = store.sink { value in
            log.enter(value)
            // Sends made while the sink is busy (here, by the sink itself) wait for it to return.
            if value == 1 {
                for _ in 2...100 { store.send(.add(1)) }
            }
            log.leave()
        }
        store.send(.add(1))
        #expect(log.values == [0, 1, 100])
        #expect(log.deepest == 1)
        subscription.cancel()
    }

    @Test func closingEndsEverySinkAndALaterSinkGetsNothing() {
        let store = Self.store()
        let log = SinkLog()
        _ = store.sink {
            log.enter($0)
            log.leave()
        }
        store.close()
        store.send(.add(1))
        #expect(log.values == [0])
        #expect(store.subscriberCount == 0)
        _ = store.sink {
            log.enter($0)
            log.leave()
        }
        #expect(log.values == [0])
    }

    @Test func aSinkIsCalledOutsideTheStoresLockSoItMayReadAndSendToTheStore() {
        let store = Self.store()
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

    @Test func manyConcurrentSendersReachASinkSeriallyEndingAtTheLastState() async {
        let store = Self.store()
        let log = SinkLog()
        let subscription = store.sink {
            log.enter($0)
            log.leave()
        }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<1_000 {
                group.addTask { store.send(.add(1)) }
            }
        }
        #expect(log.deepest == 1)
        #expect(log.values.last == 1_000)
        #expect(log.values == log.values.sorted())
        subscription.cancel()
    }
}
