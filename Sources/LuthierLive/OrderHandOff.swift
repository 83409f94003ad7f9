import Synchronization

/// What an order placed here learned in its own statement, left for the request that placed it to
/// pick up right after: a hand-off, not a cache. Each value is taken once, by its order's number;
/// values nobody takes (an order placed without a request to tell, as in tests) give way to newer
/// ones past `capacity`, so it holds at most that many.
final class OrderHandOff<Value: Sendable>: Sendable {
    private struct Left {
        var order: [String] = []
        var values: [String: Value] = [:]
    }

    private let left = Mutex(Left())
    let capacity: Int

    init(capacity: Int = 64) {
        precondition(capacity > 0, "a hand-off holds at least one value")
        self.capacity = capacity
    }

    /// Leaves `value` for the order numbered `number`; the oldest left goes when it is full.
    func leave(_ value: Value, for number: String) {
        left.withLock { left in
            if left.values.updateValue(value, forKey: number) == nil { left.order.append(number) }
            while left.order.count > capacity { left.values[left.order.removeFirst()] = nil }
        }
    }

    /// The value left for the order numbered `number`, once; nil if none is (or it gave way).
    func take(for number: String) -> Value? {
        left.withLock { left in
            guard let value = left.values.removeValue(forKey: number) else { return nil }
            left.order.removeAll { $0 == number }
            return value
        }
    }
}
