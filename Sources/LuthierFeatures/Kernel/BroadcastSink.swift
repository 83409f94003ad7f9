import Synchronization

/// One callback following a `Store`'s states (`sink`): a mailbox of one value and a flag saying
/// whether somebody is delivering.
///
/// Whoever offers a value to an idle sink becomes its deliverer (`drain`) and calls the callback
/// until the mailbox is empty; a value offered meanwhile replaces the waiting one and is picked up
/// by that same deliverer. So the callback is never called twice at once, it sees values in the
/// order they were offered, a slow callback is owed only the newest, and no task waits between
/// values.
final class BroadcastSink<Value: Sendable>: Sendable {
    private struct Mailbox {
        var waiting: Value?
        var isDelivering = false
        var isCancelled = false
    }

    private let receive: @Sendable (Value) -> Void
    private let mailbox = Mutex(Mailbox())

    init(_ receive: @escaping @Sendable (Value) -> Void) {
        self.receive = receive
    }

    /// Puts `value` in the mailbox; true when the caller must `drain` (nobody is delivering).
    func offer(_ value: Value) -> Bool {
        mailbox.withLock { mailbox in
            guard !mailbox.isCancelled else { return false }
            mailbox.waiting = value
            guard !mailbox.isDelivering else { return false }
            mailbox.isDelivering = true
            return true
        }
    }

    /// Delivers what waits, until nothing does.
    func drain() {
        while let value = next() { receive(value) }
    }

    /// No value is delivered after this returns, unless a delivery is under way on another thread.
    func cancel() {
        mailbox.withLock { mailbox in
            mailbox.isCancelled = true
            mailbox.waiting = nil
        }
    }

    private func next() -> Value? {
        mailbox.withLock { mailbox in
            guard !mailbox.isCancelled, let value = mailbox.waiting else {
                mailbox.isDelivering = false
                return nil
            }
            mailbox.waiting = nil
            return value
        }
    }
}

/// The callbacks a store owes its sinks after a change, delivered once the locks are released.
struct BroadcastDelivery<Value: Sendable> {
    let sinks: [BroadcastSink<Value>]

    func deliver() {
        for sink in sinks { sink.drain() }
    }
}

/// A `sink`'s subscription: `cancel()` ends it (Combine's `AnyCancellable`, without the
/// cancel-on-deinit: a session keeps its subscriptions and cancels them when it closes).
public struct BroadcastSubscription: Sendable {
    private let cancellation: @Sendable () -> Void

    init(_ cancellation: @escaping @Sendable () -> Void) {
        self.cancellation = cancellation
    }

    public func cancel() { cancellation() }
}
