/// What a shared store tells every instance of its sessions.
public enum SessionStoreNotice: Hashable, Sendable {
    /// The instance listens (again): saves committed while it did not were not told, so every
    /// session it holds should be read again.
    case listening
    /// A session's save (or deletion) was committed.
    case saved(StoredSessionRevision)
}

/// A session revision committed to a shared store, as the store tells it to every instance: the
/// session's storage key (never its cookie) and the revision now stored. A deleted session's
/// revision is `Int64.max` (its tombstone).
public struct StoredSessionRevision: Hashable, Sendable {
    public var key: String
    public var revision: Int

    public init(key: String, revision: Int) {
        self.key = key
        self.revision = revision
    }

    /// The text a notification carries: `revision key`.
    public var payload: String { "\(revision) \(key)" }

    /// The revision a notification's `payload` tells; nil for anything else.
    public init?(payload: String) {
        let parts = payload.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, let revision = Int(parts[0]), revision > 0, !parts[1].isEmpty else { return nil }
        self.init(key: String(parts[1]), revision: revision)
    }

    /// The revision a deleted session's tombstone is stored under: higher than any save's.
    public static let deleted = Int(Int64.max)

    /// Whether this is a deletion's tombstone: the session under `key` is gone for good.
    public var isDeletion: Bool { revision == Self.deleted }
}
