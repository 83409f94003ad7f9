import Foundation

/// One step of an order's history: the stage it reached and when, with the admin's note for the
/// steps an admin took (a cancellation says why).
public struct StageEntry: Hashable, Sendable, Codable {
    public var status: OrderStatus
    public var startedAt: Date
    public var note: String?

    public init(status: OrderStatus, startedAt: Date, note: String? = nil) {
        self.status = status
        self.startedAt = startedAt
        self.note = note
    }
}
