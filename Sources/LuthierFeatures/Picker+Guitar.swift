import LuthierDomain
import Synchronization

extension Picker {
    /// The builder's four pickers for `guitar`, in page order: Shape, Color, Body, Fretboard.
    ///
    /// Built once per guitar and shared by every output that shows it, as `GuitarArtwork` shares
    /// its pictures: a session keeps its builder's output for its whole life, and its option lists
    /// were 1.2 KiB of every session (release, heaptrack, 1,000 sessions), the same for every
    /// session that shows the same guitar.
    public static func all(for guitar: Guitar) -> [Picker] {
        built.pickers(for: guitar)
    }

    private static let built = Built()

    /// The picker lists built so far. A memo of a pure function, so it cannot change what anyone
    /// sees; bounded by construction, as there are only 256 guitars (about 300 KB if all were built).
    private final class Built: Sendable {
        private let lists = Mutex<[Guitar: [Picker]]>([:])

        func pickers(for guitar: Guitar) -> [Picker] {
            if let pickers = lists.withLock({ $0[guitar] }) { return pickers }
            let pickers = [
                Picker(Shape.self, selected: guitar.shape),
                Picker(Color.self, selected: guitar.color),
                Picker(BodyWood.self, selected: guitar.body),
                Picker(FretboardWood.self, selected: guitar.fretboard),
            ]
            return lists.withLock { lists in
                if let earlier = lists[guitar] { return earlier }
                lists[guitar] = pickers
                return pickers
            }
        }
    }
}
