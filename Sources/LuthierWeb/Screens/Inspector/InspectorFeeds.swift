import ServerMachinery
import Synchronization

/// The inspector's live diagrams: one per session (its recorder) and view, however many streams
/// follow it. A tab reloaded ten times, or an attacker's ten streams on one session, cost one
/// diagram, drawn by one loop, not ten.
final class InspectorFeeds: Sendable {
    /// What one diagram shows: whose streams (the recorder), over which window, on which lanes.
    struct Key: Hashable, Sendable {
        let recorder: ObjectIdentifier
        let window: Int
        let lane: String?
        /// The input lit up, if any.
        let cause: Int?
    }

    private struct Feed {
        let fragments: FragmentStore
        let drawing: Task<Void, Never>
        var followers: Int
    }

    private let feeds = Mutex<[Key: Feed]>([:])
    /// Diagrams drawn since the start, by every feed (what the tests count).
    private let drawn = Atomic<Int>(0)

    /// The fragments of `key`'s diagram, for one more stream to follow until it calls `leave(key)`.
    /// The first follower starts the drawing: the store holds `initial()` (the diagram now), and
    /// `start` is given the store to publish into and returns the loop that does, cancelled when
    /// the last follower leaves.
    func follow(
        _ key: Key, initial: () -> [Fragment], start: (FragmentStore) -> Task<Void, Never>
    ) -> FragmentStore {
        feeds.withLock { feeds in
            if var feed = feeds[key] {
                feed.followers += 1
                feeds[key] = feed
                return feed.fragments
            }
            let fragments = FragmentStore(initial: initial())
            feeds[key] = Feed(fragments: fragments, drawing: start(fragments), followers: 1)
            return fragments
        }
    }

    /// One stream of `key` stopped following it; the last one ends the drawing.
    func leave(_ key: Key) {
        let ended = feeds.withLock { feeds -> Feed? in
            guard var feed = feeds[key] else { return nil }
            feed.followers -= 1
            guard feed.followers <= 0 else {
                feeds[key] = feed
                return nil
            }
            feeds[key] = nil
            return feed
        }
        guard let ended else { return }
        ended.drawing.cancel()
        ended.fragments.finish()
    }

    /// Counts one diagram drawn.
    func countDrawing() { drawn.add(1, ordering: .relaxed) }

    /// Diagrams drawn since the start.
    var drawings: Int { drawn.load(ordering: .relaxed) }

    /// Diagrams being drawn now (one per session and view followed).
    var count: Int { feeds.withLock { $0.count } }
}
