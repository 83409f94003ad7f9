import ServerMachinery

extension FragmentStore {
    /// Returns true once `condition` holds of this store, looked at now and after each publish (as
    /// a stream is woken: nothing polls); false if `limit` passes first. It follows the store
    /// like a stream while it waits, so it counts among the store's subscribers.
    package func until(
        within limit: Duration = .seconds(5), _ condition: @escaping @Sendable (FragmentStore) -> Bool
    ) async -> Bool {
        let (wakes, waker) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        guard let id = addWaker(StreamWaker(waker)) else { return condition(self) }
        defer { removeWaker(id) }
        waker.yield()
        return await firstValue(of: wakes, within: limit) { [self] _ in condition(self) }
    }
}
