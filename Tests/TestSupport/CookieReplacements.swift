import Synchronization

/// What a browser's cookie jar learns when the server replaces a cookie (an order gives the
/// session a new id): each value a test first got maps to the newest one, so later requests carry
/// that. Shared by the in-process web tests and the process tests' HTTP client.
package final class CookieReplacements: Sendable {
    private let replacements = Mutex<[String: String]>([:])

    package init() {}

    /// The newest value of a cookie first seen as `value` (itself if it was never replaced).
    package func newest(of value: String) -> String {
        replacements.withLock { replacements in
            var value = value
            var hops = 0
            while let next = replacements[value], hops < 64 {
                value = next
                hops += 1
            }
            return value
        }
    }

    /// Records that `old` was replaced by `new`; the first replacement of a value is the one kept.
    package func record(_ old: String, replacedBy new: String) {
        guard old != new, !new.isEmpty else { return }
        replacements.withLock { replacements in
            if replacements[old] == nil { replacements[old] = new }
        }
    }

    /// How many replacements it knows.
    package var count: Int { replacements.withLock { $0.count } }

    /// Whether `value` has been replaced since.
    package func isReplaced(_ value: String) -> Bool {
        replacements.withLock { $0[value] != nil }
    }
}
