import Testing

@testable import LuthierFeatures

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
}
