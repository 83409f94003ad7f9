import Synchronization

/// A count that concurrent tasks add to: the answers a phase got.
final class Counter: Sendable {
    private let count = Atomic<Int>(0)

    func increment() { count.add(1, ordering: .relaxed) }

    var value: Int { count.load(ordering: .relaxed) }
}
