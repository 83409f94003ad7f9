import Foundation
import LuthierDomain

/// Orders oldest first (by time placed, then number), each once, kept in chunks: a copy of the
/// list shares its chunks, and placing, moving or finishing one order copies one chunk and the
/// list of chunks, not every order.
///
/// The workshop floor holds every order in progress, thousands on a busy day, and its store keeps
/// the floor from before each change beside the one after (to leave out a change that changed
/// nothing, and for the floor's readers). In one array, every order placed copied them all: the
/// server's work per order grew with the backlog. Here it grows with its square root, and finding
/// an order is a halving search on the time it was placed, which never changes.
public struct OrderList: Hashable, Sendable, BidirectionalCollection, ExpressibleByArrayLiteral {
    /// A chunk is split when it grows past twice this, so each holds between one and
    /// `2 × chunkSize` orders.
    static let chunkSize = 64

    /// The chunks, in order, none empty.
    private var chunks: [[Order]]
    public private(set) var count: Int

    /// `orders`, which must be sorted oldest first with each number once.
    init(sorted orders: [Order]) {
        chunks = stride(from: 0, to: orders.count, by: Self.chunkSize).map {
            Array(orders[$0..<Swift.min($0 + Self.chunkSize, orders.count)])
        }
        count = orders.count
    }

    /// `orders` sorted oldest first, each number once (its first occurrence).
    public init(_ orders: some Sequence<Order>) {
        self.init(sorted: WorkshopFloorState.unique(orders).sorted(by: Self.isOlder))
    }

    public init(arrayLiteral orders: Order...) {
        self.init(orders)
    }

    /// Oldest first: placed earlier, then the smaller number (the store's `ORDER BY`).
    static func isOlder(_ a: Order, _ b: Order) -> Bool {
        a.placedAt != b.placedAt ? a.placedAt < b.placedAt : a.number < b.number
    }

    // MARK: - Collection

    public struct Index: Comparable, Sendable {
        let chunk: Int
        let offset: Int

        public static func < (a: Index, b: Index) -> Bool {
            a.chunk != b.chunk ? a.chunk < b.chunk : a.offset < b.offset
        }
    }

    public var startIndex: Index { Index(chunk: 0, offset: 0) }
    public var endIndex: Index { Index(chunk: chunks.count, offset: 0) }
    public var isEmpty: Bool { count == 0 }

    public subscript(position: Index) -> Order { chunks[position.chunk][position.offset] }

    public func index(after i: Index) -> Index {
        i.offset + 1 < chunks[i.chunk].count
            ? Index(chunk: i.chunk, offset: i.offset + 1) : Index(chunk: i.chunk + 1, offset: 0)
    }

    public func index(before i: Index) -> Index {
        i.offset > 0
            ? Index(chunk: i.chunk, offset: i.offset - 1)
            : Index(chunk: i.chunk - 1, offset: chunks[i.chunk - 1].count - 1)
    }

    // MARK: - Finding and changing one order

    /// Where `order` (by its number, at the place its time placed gives it) is, if listed.
    func position(of order: Order) -> Index? {
        let at = insertionPoint(of: order)
        guard at < endIndex, self[at].number == order.number else { return nil }
        return at
    }

    /// Inserts `order`, which must not be listed, where it belongs.
    mutating func insert(_ order: Order) {
        guard !chunks.isEmpty else {
            chunks = [[order]]
            count = 1
            return
        }
        var at = insertionPoint(of: order)
        if at.chunk == chunks.count { at = Index(chunk: at.chunk - 1, offset: chunks[at.chunk - 1].count) }
        chunks[at.chunk].insert(order, at: at.offset)
        count += 1
        if chunks[at.chunk].count > 2 * Self.chunkSize {
            let tail = Array(chunks[at.chunk][Self.chunkSize...])
            chunks[at.chunk].removeSubrange(Self.chunkSize...)
            chunks.insert(tail, at: at.chunk + 1)
        }
    }

    /// Puts `order` in place of the one at `position`, which must be the same order (its place is
    /// by when it was placed, which never changes).
    mutating func replace(at position: Index, with order: Order) {
        chunks[position.chunk][position.offset] = order
    }

    mutating func remove(at position: Index) {
        chunks[position.chunk].remove(at: position.offset)
        if chunks[position.chunk].isEmpty { chunks.remove(at: position.chunk) }
        count -= 1
    }

    /// The first place whose order is not older than `order`: found by halving, first over the
    /// chunks' last orders, then within the chunk.
    private func insertionPoint(of order: Order) -> Index {
        var (low, high) = (0, chunks.count)
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, Self.isOlder(last, order) { low = middle + 1 } else { high = middle }
        }
        guard low < chunks.count else { return endIndex }
        let chunk = chunks[low]
        var (first, past) = (0, chunk.count)
        while first < past {
            let middle = (first + past) / 2
            if Self.isOlder(chunk[middle], order) { first = middle + 1 } else { past = middle }
        }
        return Index(chunk: low, offset: first)
    }

    // MARK: - Equality

    /// The same orders in the same order, however they are chunked; lists that share their chunks
    /// (a floor and its copy before a change) are told equal chunk by chunk, without comparing
    /// the orders of the chunks they share.
    public static func == (a: OrderList, b: OrderList) -> Bool {
        a.count == b.count && (a.chunks == b.chunks || a.elementsEqual(b))
    }

    public static func == (a: OrderList, b: [Order]) -> Bool {
        a.count == b.count && a.elementsEqual(b)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for order in self { hasher.combine(order) }
    }
}
