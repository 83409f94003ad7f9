import LuthierDomain
import Synchronization

extension Picker {
    /// The builder's four pickers for `guitar`, in page order: Shape, Color, Body, Fretboard.
    ///
    /// Built once per guitar and shared by every output that shows it, as `GuitarArtwork` shares
    /// its pictures: a session keeps its builder's output for its whole life, and its option lists
    /// were 1.2 KiB of every session (release, heaptrack, 1,000 sessions), the same for every
    /// session that shows the same guitar.
    /// The woods in `soldOut` are marked out of stock.
    public static func all(for guitar: Guitar, soldOut: Set<StockedWood> = []) -> [Picker] {
        built.pickers(for: Built.Key(guitar: guitar, soldOut: soldOut))
    }

    private static let built = Built()

    /// The picker lists built so far. A memo of a pure function, so it cannot change what anyone
    /// sees. There are 256 guitars, and the woods out of stock change rarely (a shop sees a handful
    /// of such sets), so it stays small; it is emptied past `limit` lists all the same, so that no
    /// history of stock can grow it without end.
    private final class Built: Sendable {
        struct Key: Hashable {
            let guitar: Guitar
            let soldOut: Set<StockedWood>
        }

        static let limit = 2_048
        private let lists = Mutex<[Key: [Picker]]>([:])

        func pickers(for key: Key) -> [Picker] {
            if let pickers = lists.withLock({ $0[key] }) { return pickers }
            let guitar = key.guitar
            let pickers = [
                Picker(Shape.self, selected: guitar.shape),
                Picker(Color.self, selected: guitar.color),
                Picker(BodyWood.self, selected: guitar.body) { key.soldOut.contains(.body($0)) },
                Picker(FretboardWood.self, selected: guitar.fretboard) { key.soldOut.contains(.fretboard($0)) },
            ]
            return lists.withLock { lists in
                if let earlier = lists[key] { return earlier }
                if lists.count >= Self.limit { lists.removeAll() }
                lists[key] = pickers
                return pickers
            }
        }
    }
}
