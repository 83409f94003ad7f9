/// What an order takes out of one stock line: `count` pieces of `wood`.
///
/// The rules of stock, judged here and not in a store, so that every store (SQLite, PostgreSQL)
/// only reads the stock and writes what these say.
public struct WoodNeed: Hashable, Sendable {
    public var wood: StockedWood
    public var count: Int

    public init(wood: StockedWood, count: Int) {
        self.wood = wood
        self.count = count
    }

    /// What an order of `lines` takes, per stock line (`quantity` body blanks and `quantity`
    /// fretboards per line), in the order the lines first name each wood (body before
    /// fretboard), so that messages list woods predictably.
    public static func of(_ lines: [CartLine]) -> [WoodNeed] {
        var needs: [WoodNeed] = []
        for line in lines {
            for wood in StockedWood.parts(of: line.guitar) {
                if let index = needs.firstIndex(where: { $0.wood == wood }) {
                    needs[index].count += line.quantity
                } else {
                    needs.append(WoodNeed(wood: wood, count: line.quantity))
                }
            }
        }
        return needs
    }

    /// The names of the woods whose stock is short of what `needs` take, in the needs' order;
    /// empty when the whole order can be built. Judged on the whole order, so that two lines
    /// cannot each take the last piece.
    public static func missing(_ needs: [WoodNeed], stock: [StockedWood: Int]) -> [String] {
        needs.filter { (stock[$0.wood] ?? 0) < $0.count }.map(\.wood.stockName)
    }

    /// Each line's availability, in line order: a line is unavailable when any of its woods has
    /// less in stock than the whole order needs of it, and then names those woods, body first.
    public static func availability(of lines: [CartLine], stock: [StockedWood: Int]) -> [Availability] {
        let needed = Dictionary(uniqueKeysWithValues: of(lines).map { ($0.wood, $0.count) })
        return lines.map { line in
            let missing = StockedWood.parts(of: line.guitar)
                .filter { (stock[$0] ?? 0) < (needed[$0] ?? 0) }
                .map(\.stockName)
            return missing.isEmpty ? .available : .unavailable(missing: missing)
        }
    }
}
