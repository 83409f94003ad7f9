import TestSupport
import Testing

@testable import ServerMachinery

@Suite struct WatchedCountTests {
    @Test func aWaitIsMetAtOnceWhenTheCountAlreadyMeetsIt() async {
        let count = WatchedCount()
        count.add(2)
        #expect(await count.waitUntil { $0 == 2 })
    }

    @Test func aWaitIsResumedByTheChangeThatMeetsItAndNotBefore() async {
        let count = WatchedCount()
        let met = Task { await count.waitUntil { $0 == 3 } }
        for _ in 0..<3 { count.add(1) }
        #expect(await met.value)
        #expect(count.value == 3)
    }

    /// Changes from many threads racing waiters that register: none is missed (the count and the
    /// waiting flag are read in sequentially consistent order on both sides).
    @Test func noChangeFallsBetweenAWaitersLookAndItsRegistration() async {
        for round in 0..<200 {
            let count = WatchedCount()
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { await within { _ = await count.waitUntil { $0 == 8 } } }
                for _ in 0..<8 { group.addTask { count.add(1) == 0 } }
                var met = false
                for await result in group where result { met = true }
                #expect(met, "round \(round): the wait for eight was never met")
            }
            #expect(count.value == 8)
        }
    }

    @Test func aCancelledWaitReturnsFalseAndLeavesNobodyWaiting() async {
        let count = WatchedCount()
        let wait = Task { await count.waitUntil { $0 == 1 } }
        wait.cancel()
        #expect(await wait.value == false)
        count.add(1)
        #expect(count.withConditionWaiters { waiters, _ in waiters.isEmpty })
    }
}
