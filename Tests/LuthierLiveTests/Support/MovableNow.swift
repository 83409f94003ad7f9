import Foundation
import Synchronization

/// A wall clock a test sets by hand, for the `now` the rates count as of.
final class MovableNow: Sendable {
    private let date: Mutex<Date>

    init(_ date: Date) {
        self.date = Mutex(date)
    }

    var value: Date {
        get { date.withLock { $0 } }
        set { date.withLock { $0 = newValue } }
    }

    /// Reads the current value; pass it as a provider's `now`.
    @Sendable func callAsFunction() -> Date { value }
}
