/// How an open stream is told that there may be something new to send, and that its source has
/// ended: two callbacks, so that a stream costs a value where it is registered, not a task waiting
/// on an `AsyncStream`.
///
/// `wake` may be called from any thread, and as often as it likes: it must only note the wake-up
/// and return (an ``EventStreamChannelHandler`` raises a flag and, if it was down, schedules one
/// catch-up on its event loop). Its callers (a ``FragmentStore``, the ``EventStreamHub``) call it
/// after letting go of their locks, so what a wake schedules may read them at once.
public struct StreamWaker: Sendable {
    /// There may be something new to send.
    public let wake: @Sendable () -> Void
    /// The source has ended: nothing more will come.
    public let finish: @Sendable () -> Void

    public init(wake: @escaping @Sendable () -> Void, finish: @escaping @Sendable () -> Void) {
        self.wake = wake
        self.finish = finish
    }

    /// A waker for a reader that awaits its wake-ups (`for await _ in wakes`): each wake is
    /// yielded to the continuation, and the end finishes it.
    public init(_ continuation: AsyncStream<Void>.Continuation) {
        self.init(wake: { continuation.yield() }, finish: { continuation.finish() })
    }
}
