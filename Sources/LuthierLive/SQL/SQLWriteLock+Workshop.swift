import SQLMachinery

extension SQLWriteLock {
    /// Every write that judges stock or moves an order.
    static let workshop = SQLWriteLock("workshop")
    /// The owner's journal stories: nothing of the workshop's waits for them.
    static let journal = SQLWriteLock("journal")
}

extension SQLDatabase {
    /// One write transaction holding the workshop's lock.
    func write<T: Sendable>(_ body: @escaping @Sendable (any SQLConnection) async throws -> T) async throws -> T {
        try await write(lock: .workshop, body)
    }
}
