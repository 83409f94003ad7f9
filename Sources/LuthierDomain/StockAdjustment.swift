import Foundation

/// One audited change of a wood's stock: a restock, a correction after a count, or the pieces a
/// cancelled order gave back. Stock is never overwritten silently: every change is one of these,
/// with who-knows-why in its note.
public struct StockAdjustment: Hashable, Sendable, Codable {
    public var wood: StockedWood
    /// Pieces added (positive) or taken away (negative).
    public var change: Int
    /// The stock right after the change.
    public var inStockAfter: Int
    /// Why, in the admin's words ("Delivery from Tonewood Co.", "Order LU-7K3M9Q cancelled").
    public var note: String
    public var madeAt: Date

    public init(wood: StockedWood, change: Int, inStockAfter: Int, note: String, madeAt: Date) {
        self.wood = wood
        self.change = change
        self.inStockAfter = inStockAfter
        self.note = note
        self.madeAt = madeAt
    }

    /// How long a note may be, in characters.
    public static let longestNote = 200

    /// `text` as an admin's note (a stock adjustment's, a cancellation's): trimmed, 1–`longestNote`
    /// characters on one line, no control characters; nil when it is not one. The one rule for the
    /// admin's forms and the command line alike.
    public static func note(_ text: String) -> String? {
        text.oneLine(longest: longestNote)
    }

    /// Why `text` is not a note, as the end of a sentence; nil when it is one.
    public static func noteProblem(_ text: String) -> String? {
        text.oneLineProblem(longest: longestNote)
    }
}
