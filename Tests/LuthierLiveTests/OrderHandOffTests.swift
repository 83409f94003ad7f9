import Testing

@testable import LuthierLive

@Suite("OrderHandOff")
struct OrderHandOffTests {
    @Test("a value left for an order is taken once, by its number")
    func takenOnce() {
        let handOff = OrderHandOff<Int>()
        handOff.leave(7, for: "LU-AAAAAA")
        #expect(handOff.take(for: "LU-BBBBBB") == nil)
        #expect(handOff.take(for: "LU-AAAAAA") == 7)
        #expect(handOff.take(for: "LU-AAAAAA") == nil)
    }

    @Test("values nobody takes give way to newer ones past the capacity, oldest first")
    func bounded() {
        let handOff = OrderHandOff<Int>(capacity: 3)
        for number in 1...5 { handOff.leave(number, for: "LU-\(number)") }
        #expect(handOff.take(for: "LU-1") == nil)
        #expect(handOff.take(for: "LU-2") == nil)
        #expect(handOff.take(for: "LU-5") == 5)
        // Taking one makes room: the next left pushes out none of the others.
        handOff.leave(6, for: "LU-6")
        #expect([3, 4, 6].map { handOff.take(for: "LU-\($0)") } == [3, 4, 6])
    }
}
